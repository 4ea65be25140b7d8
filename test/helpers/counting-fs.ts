/** A HostFs that counts the reads of each path, for tests of which /proc files a walk reads and how often. */
import { HostFs } from "../../src/system/host-fs.js";

export class CountingFs extends HostFs {
  readonly reads = new Map<string, number>();

  override readWith<T>(absolute: string, parse: (bytes: Buffer) => T) {
    this.reads.set(absolute, (this.reads.get(absolute) ?? 0) + 1);
    return super.readWith(absolute, parse);
  }

  count(path: string): number {
    return this.reads.get(path) ?? 0;
  }
}
