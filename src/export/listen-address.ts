/** Where `--metrics` listens: a host (127.0.0.1 unless given) and a port. The CLI parses it; commands open it. */
export interface ListenAddress {
  host: string;
  port: number;
}
