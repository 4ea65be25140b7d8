/**
 * Series from a real Prometheus (fixtures/prometheus/, captured by scripts/capture-prometheus-fixtures.sh from three
 * scenarios under `memleak run --metrics`) judged by the verdict engine, one subject per label set. Read as a decision
 * table: query → subject → verdict.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { analyzePrometheus, MAX_SUBJECTS } from "../../../src/prometheus/verdicts.js";
import { parseRangeResponse } from "../../../src/prometheus/range-response.js";
import { isOwnBookkeeping, subjectsOf } from "../../../src/prometheus/series-samples.js";
import { fixture, REPO } from "../../helpers/fixtures.js";

const seriesOf = (file: string) => parseRangeResponse(200, fixture(`prometheus/${file}`), "x").series;
const verdicts = (file: string) =>
  Object.fromEntries(analyzePrometheus(seriesOf(file)).subjects.map((s) => [s.subject.name, s.verdict.kind]));

describe("one verdict per subject", () => {
  it.each([
    [
      "cadvisor-containers.json",
      { "ml/logger-0/app": "cgroup-artefact", "ml/leaker-0/app": "leak", "ml/steady-0/app": "stable" },
    ],
  ])("%s → %j", (file, expected) => {
    expect(verdicts(file)).toEqual(expected);
  });

  it("memleak's own process series: the leaking pid leaks, the others are stable", () => {
    const judged = analyzePrometheus(seriesOf("memleak-process.json")).subjects;
    expect(judged).toHaveLength(3);
    const kinds = judged.map((s) => s.verdict.kind).sort();
    expect(kinds).toEqual(["leak", "stable", "stable"]);
    const leak = judged.find((s) => s.verdict.kind === "leak")!;
    expect(leak.subject.kind).toBe("process");
    expect(leak.verdict.pid).toBe(Number(leak.subject.labels.pid));
    expect(leak.subject.metrics.sort()).toEqual([
      "memleak_process_anon_bytes",
      "memleak_process_pss_bytes",
      "memleak_process_rss_bytes",
      "memleak_process_uss_bytes",
    ]);
  });

  it("memleak's own cgroup series: the same three verdicts as cAdvisor's names over the same cgroups", () => {
    const kinds = Object.values(verdicts("memleak-cgroup.json")).sort();
    expect(kinds).toEqual(["cgroup-artefact", "leak", "stable"]);
  });

  it("the page cache that filled the logger's cgroup is named, from rss and cache against usage", () => {
    const { doc } = analyzePrometheus(seriesOf("cadvisor-containers.json"));
    const logger = doc.findings.find((f) => f.subject.type === "cgroup" && f.subject.path === "ml/logger-0/app")!;
    expect(logger.kind).toBe("cgroup-artefact");
    expect(Number(logger.evidence.pageCacheGrowth)).toBeGreaterThan(100 * 2 ** 20);
    // No process is in cAdvisor's series: no "processes grew by 0 B" as if they had been read, and the finding says so.
    expect(logger.evidence.processesGrowth).toBeUndefined();
    expect(logger.caveats.join(" ")).toContain("the container's processes are not in these series");
    expect(logger.evidence.source).toBe("prometheus");
    expect(logger.evidence.metrics).toBe(
      "container_memory_cache,container_memory_rss,container_memory_usage_bytes,container_memory_working_set_bytes",
    );
    expect(String(logger.evidence.series)).toContain('pod="logger-0"');
  });

  it("the document's verdict is the most serious finding of all subjects: the leaking pod", () => {
    const { doc } = analyzePrometheus(seriesOf("cadvisor-containers.json"));
    expect(doc.verdict.kind).toBe("leak");
    expect(doc.verdict.subject).toMatchObject({ type: "cgroup", path: "ml/leaker-0/app" });
    expect(doc.findings).toHaveLength(3);
    expect(doc.schema).toBe("memleak.verdict/1");
  });

  it("a level alone (working set summed by pod) cannot tell page cache from anon: the finding says so", () => {
    const { subjects } = analyzePrometheus(seriesOf("cadvisor-working-set-by-pod.json"));
    expect(subjects.map((s) => s.subject.name).sort()).toEqual(["leaker-0", "logger-0", "steady-0"]);
    const leaker = subjects.find((s) => s.subject.name === "leaker-0")!;
    expect(leaker.verdict.kind).toBe("leak");
    expect(leaker.verdict.caveats.join(" ")).toContain("page cache cannot be told from anonymous memory");
    expect(leaker.verdict.evidence.metrics).toBe("(aggregated)");
  });
});

describe("series → subjects", () => {
  it("memleak's own series that are not memory figures are bookkeeping; its memory series and others' are not", () => {
    const named = (__name__: string) => ({ labels: { __name__, pid: "1" }, ts: [1], values: [1] });
    for (const name of [
      "memleak_verdict",
      "memleak_verdict_confidence",
      "memleak_finding",
      "memleak_self_cpu_seconds_total",
      "memleak_samples_total",
      "memleak_unexported_processes",
    ]) {
      expect(isOwnBookkeeping(named(name)), name).toBe(true);
    }
    for (const name of [
      "memleak_process_anon_bytes",
      "memleak_cgroup_usage_bytes",
      "memleak_cgroup_limit_bytes",
      "container_memory_rss",
      "my_app_heap_bytes",
    ]) {
      expect(isOwnBookkeeping(named(name)), name).toBe(false);
    }
    expect(isOwnBookkeeping({ labels: { pod: "a" }, ts: [1], values: [1] })).toBe(false);
  });

  it("a limit series is the subject's limit, not a level (0 from cAdvisor: none)", () => {
    const labels = { pod: "a" };
    const [s] = subjectsOf([
      { labels: { __name__: "container_memory_usage_bytes", ...labels }, ts: [1, 2], values: [10, 11] },
      { labels: { __name__: "container_spec_memory_limit_bytes", ...labels }, ts: [1, 2], values: [0, 100] },
    ]);
    expect(s!.samples.map((x) => [x.cgroup?.usage, x.cgroup?.limit])).toEqual([
      [10, null],
      [11, 100],
    ]);
  });

  it("series that differ only in their name are one subject; its samples carry each as its field", () => {
    const subjects = subjectsOf(seriesOf("cadvisor-containers.json"));
    expect(subjects).toHaveLength(3);
    const s = subjects.find((x) => x.name === "ml/leaker-0/app")!;
    expect(s.kind).toBe("cgroup");
    const last = s.samples.at(-1)!;
    expect(last.processes).toEqual([]);
    expect(last.cgroup).toMatchObject({
      usage: expect.any(Number),
      workingSet: expect.any(Number),
      stat: { anon: expect.any(Number), file: expect.any(Number) },
    });
    // Prometheus's seconds become a sample's milliseconds.
    expect(last.t).toBeGreaterThan(1.7e12);
  });
});

describe("the document", () => {
  // As schema.test.ts reads the schema (its strictRequired and union types are plain JSON Schema).
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  const validate = ajv.compile(JSON.parse(readFileSync(`${REPO}schema/verdict.schema.json`, "utf8")) as object);

  it.each([
    "cadvisor-containers.json",
    "cadvisor-working-set-by-pod.json",
    "memleak-process.json",
    "memleak-cgroup.json",
  ])("of %s is a memleak.verdict/1 document", (file) => {
    const { doc } = analyzePrometheus(seriesOf(file));
    const ok = validate(JSON.parse(JSON.stringify(doc)));
    expect(ok, ajv.errorsText(validate.errors)).toBe(true);
  });
});

describe("a query that returns more subjects than memleak judges", () => {
  it("judges the first MAX_SUBJECTS and counts the rest", () => {
    const one = seriesOf("cadvisor-containers.json").find(
      (x) => x.labels.__name__ === "container_memory_working_set_bytes",
    )!;
    const short = { ...one, ts: one.ts.slice(0, 5), values: one.values.slice(0, 5) };
    const many = Array.from({ length: MAX_SUBJECTS + 7 }, (_, i) => ({
      ...short,
      labels: { ...short.labels, pod: `p-${i}` },
    }));
    const r = analyzePrometheus(many);
    expect(r.subjects).toHaveLength(MAX_SUBJECTS);
    expect(r.omitted).toBe(7);
  });
});
