/**
 * The recipes in examples/ that no test can run here (Kubernetes manifests, a compose file, the Kubernetes scrape job:
 * no cluster, no Docker on this machine): each must parse as YAML, and every memleak command line in them must use only
 * options memleak has, for that command (the options' table, src/cli/options.ts), and parse as memleak parses it.
 * examples/prometheus/prometheus.yml is run for real by test/e2e/prometheus.test.ts; examples/github-actions.yml by
 * test/e2e/ci.test.ts.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { parseCLI } from "../../src/cli/parse.js";
import { COMMANDS, takes, type CommandName } from "../../src/cli/option-spec.js";
import { OPTIONS } from "../../src/cli/options.js";
import { REPO } from "../helpers/fixtures.js";

const EXAMPLES = join(REPO, "examples");
const FILES = ["kubernetes", "docker", "prometheus"].flatMap((dir) =>
  readdirSync(join(EXAMPLES, dir))
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => `${dir}/${f}`),
);

function documents(file: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(join(EXAMPLES, file), "utf8"));
  for (const d of docs) expect(d.errors, `${file}: ${d.errors.map((e) => e.message).join("; ")}`).toEqual([]);
  return docs.map((d) => d.toJS());
}

function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}

/** `memleak <command> …` in a shell line, up to the end of its simple command; shell words ("$pid") read as PID 1. */
function invocations(text: string): string[][] {
  const out: string[][] = [];
  for (const m of text.matchAll(/(?:^|[\s;&|(])memleak\s+([^;&|\n]+)/g)) {
    const words = m[1]!
      .trim()
      .split(/\s+/)
      .map((w) => w.replace(/^["']|["']$/g, ""));
    out.push(words.map((w) => (w.startsWith("$") ? "1" : w)));
  }
  return out;
}

describe.each(FILES)("examples/%s", (file) => {
  it("parses as YAML", () => {
    expect(documents(file).length).toBeGreaterThan(0);
  });

  const calls = documents(file).flatMap(strings).flatMap(invocations);
  it.runIf(calls.length > 0).each(calls.map((c) => [c.join(" "), c] as const))(
    "memleak %s: only the command's own options, and it parses",
    (_text, argv) => {
      const command = argv[0] as CommandName;
      expect(COMMANDS).toContain(command);
      for (const flag of argv.filter((w) => w.startsWith("--"))) {
        const row = Object.values(OPTIONS).find((o) => o.flag === flag);
        expect(row, `${flag} is not one of memleak's options`).toBeDefined();
        expect(takes(row!, command), `${flag} is not an option of ${command}`).toBe(true);
      }
      expect(parseCLI(argv)).toMatchObject({ kind: command });
    },
  );
});

describe("the manifests", () => {
  it("their shell scripts (sh -c) are valid sh", () => {
    const scripts = ["kubernetes/sidecar.yaml", "kubernetes/daemonset.yaml", "docker/compose.yaml"].flatMap((f) =>
      documents(f)
        .flatMap(strings)
        .filter((t) => /\bmemleak /.test(t)),
    );
    expect(scripts).toHaveLength(3);
    // -n: read, do not run (dash, as /bin/sh is in Debian-based images).
    for (const script of scripts) expect(() => execFileSync("sh", ["-n", "-c", script]), script).not.toThrow();
  });

  it("run memleak where it can see the target: the sidecar shares the pod's PID namespace, the DaemonSet the node's", () => {
    const [sidecar] = documents("kubernetes/sidecar.yaml") as {
      spec: { template: { spec: { shareProcessNamespace: boolean } } };
    }[];
    expect(sidecar!.spec.template.spec.shareProcessNamespace).toBe(true);
    const daemonSet = (
      documents("kubernetes/daemonset.yaml") as { kind: string; spec?: { template: { spec: { hostPID: boolean } } } }[]
    ).find((d) => d.kind === "DaemonSet");
    expect(daemonSet!.spec!.template.spec.hostPID).toBe(true);
  });

  it("every memleak they start serves /metrics beyond the loopback address (a scraper in another pod must reach it)", () => {
    const calls = ["kubernetes/sidecar.yaml", "kubernetes/daemonset.yaml", "docker/compose.yaml"].flatMap((f) =>
      documents(f).flatMap(strings).flatMap(invocations),
    );
    expect(calls.length).toBe(3);
    for (const argv of calls) expect(argv[argv.indexOf("--metrics") + 1]).toBe("0.0.0.0:9464");
  });
});

describe("examples/kubernetes/README.md", () => {
  const text = readFileSync(join(EXAMPLES, "kubernetes/README.md"), "utf8");
  // The shell blocks' memleak command lines; `<host pid>` and the like are placeholders for a pid.
  const shell = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/<[^>]+>/g, "1")).join("\n");
  const calls = [...shell.matchAll(new RegExp(`\\bmemleak\\s+((?:${COMMANDS.join("|")})\\b[^;&|\\n#]*)`, "g"))].map(
    (m) => m[1]!.trim().split(/\s+/),
  );

  it("has a command line for each direction (node, debug container)", () => {
    expect(calls.filter((c) => c[0] === "watch").length).toBeGreaterThanOrEqual(3);
  });

  it.each(calls.map((c) => [c.join(" "), c] as const))("memleak %s parses", (_text, argv) => {
    for (const flag of argv.filter((w) => w.startsWith("--")))
      expect(
        takes(
          Object.values(OPTIONS).find((o) => o.flag === flag)!,
          argv[0] as CommandName,
        ),
      ).toBe(true);
    expect(parseCLI(argv)).toMatchObject({ kind: argv[0] });
  });
});
