/** The options of issue 16 as parseCLI reads them: --metrics on run and watch; analyze's --prometheus source. */
import { describe, expect, it } from "vitest";
import { parseCLI } from "../../../src/cli/parse.js";

const error = (args: string[]) => {
  const r = parseCLI(args);
  return r.kind === "error" ? r : undefined;
};

describe("--metrics [host:]port", () => {
  it.each([
    ["9464", { host: "127.0.0.1", port: 9464 }],
    ["0.0.0.0:9464", { host: "0.0.0.0", port: 9464 }],
    ["[::1]:9100", { host: "::1", port: 9100 }],
    ["localhost:0", { host: "localhost", port: 0 }],
  ])("%s → %j", (text, metrics) => {
    expect(parseCLI(["watch", "--metrics", text, "12"])).toMatchObject({ kind: "watch", metrics });
    expect(parseCLI(["run", "--metrics", text, "--", "python3", "x.py"])).toMatchObject({ kind: "run", metrics });
  });

  it("absent: no server", () => {
    expect(parseCLI(["watch", "12"])).toMatchObject({ metrics: undefined });
  });

  it.each(["", "http://x:9", "99999", "host:", ":9464", "a:b:9464", "9464x"])("%j is a usage error", (text) => {
    expect(error(["watch", "--metrics", text, "12"])).toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/^--metrics: ".*" is not \[host:\]port/),
    });
  });

  it("is not analyze's", () => {
    expect(error(["analyze", "--metrics", "9464", "r.jsonl"])?.message).toContain("unknown option '--metrics'");
  });
});

describe("analyze --prometheus", () => {
  it("reads the server, the query, the range and the step", () => {
    expect(
      parseCLI([
        "analyze",
        "--prometheus",
        "http://prom:9090",
        "--query",
        "container_memory_rss",
        "--range",
        "6h",
        "--step",
        "30s",
      ]),
    ).toMatchObject({
      kind: "analyze",
      file: undefined,
      prometheus: { url: new URL("http://prom:9090"), query: "container_memory_rss", range: 6 * 3600, step: 30 },
    });
  });

  it("defaults: the last hour at 15 s", () => {
    expect(parseCLI(["analyze", "--prometheus", "http://prom:9090", "--query", "up"])).toMatchObject({
      prometheus: { range: 3600, step: 15 },
    });
  });

  it("a recording still works alone", () => {
    expect(parseCLI(["analyze", "r.jsonl"])).toMatchObject({ kind: "analyze", file: "r.jsonl", prometheus: undefined });
  });

  it.each([
    [["analyze"], "analyze needs a recording (memleak analyze run.jsonl) or --prometheus <url> --query <promql>"],
    [["analyze", "--prometheus", "http://p:9090"], "--prometheus needs --query <promql>: the series to judge"],
    [["analyze", "--query", "up", "r.jsonl"], "--query needs --prometheus <url>: the server to ask"],
    [
      ["analyze", "--prometheus", "http://p:9090", "--query", "up", "r.jsonl"],
      "analyze reads a recording or --prometheus, not both: drop r.jsonl or --prometheus",
    ],
    [
      ["analyze", "--prometheus", "prom:9090", "--query", "up"],
      '--prometheus: "prom:9090" is not an http:// or https:// URL',
    ],
    [
      ["analyze", "--prometheus", "not a url", "--query", "up"],
      '--prometheus: "not a url" is not a URL (http://prometheus:9090)',
    ],
    [["analyze", "--prometheus", "http://p:9090", "--query", " "], "--query: must not be empty"],
    [
      ["analyze", "--prometheus", "http://p:9090", "--query", "up", "--range", "1m", "--step", "5m"],
      "--step 300s is longer than --range 60s: no two points to judge",
    ],
    [
      ["analyze", "--prometheus", "http://p:9090", "--query", "up", "--html", "r.html"],
      "--html draws a recording's series: not with --prometheus (Grafana draws those)",
    ],
  ])("%j: %s", (args, message) => {
    expect(error(args)).toEqual({ kind: "error", message, exitCode: 2 });
  });
});
