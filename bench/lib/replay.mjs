/**
 * Re-judges a recording as it grew: feeds its samples one by one through SeriesBuilder and asks classify() at chosen
 * moments, as `memleak analyze` would have answered had the recording stopped there. The verdict document of a run
 * does not carry when it settled, so time to verdict is measured here, the same way for every scenario.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { classify } from "../../dist/report/verdict.js";
import { analyzeRecording } from "../../dist/recording/replay.js";
import { SeriesBuilder } from "../../dist/series/series.js";
import { readRecording } from "../../dist/recording/format.js";

/** What must stay the same for a verdict to count as "the same": the kind, and for a leak, which process. */
export const verdictKey = (doc) =>
  doc.verdict.kind === "leak" ? `leak:${doc.verdict.pid ?? doc.verdict.subject.type}` : doc.verdict.kind;

/**
 * Interim verdicts of a recording: `every` seconds between judgements (0 = at every sample), none before `from`
 * seconds. Only the samples are used, as a live session has them; the agent's end-of-run results (allocation traces,
 * the trim probe) exist only once the processes have exited, and are in `analyzed`: what `memleak analyze` says of
 * the whole recording.
 */
export async function replay(file, { from = 10, every = 0 } = {}) {
  // readRecording reports the header only at the end; the replay needs it from the first sample on, and a
  // recording's first line is always its header.
  const header = await firstLine(file);
  const cg = header.cgroup && "path" in header.cgroup ? header.cgroup : undefined;
  const builder = new SeriesBuilder();
  const judge = () =>
    classify({
      set: builder.set,
      options: { command: header.target.command },
      cgroup: cg ? { path: cg.path, version: cg.version } : undefined,
      target: { pid: header.target.pid },
    });
  const interim = [];
  let lastJudged = -Infinity;
  await readRecording(file, (sample) => {
    builder.add(sample);
    const t = builder.set.duration;
    if (t < from || t - lastJudged < every - 1e-9) return;
    lastJudged = t;
    interim.push({ t, doc: judge() });
  });
  const analyzed = (await analyzeRecording(file)).doc;
  return { interim, analyzed, duration: builder.set.duration, samples: builder.set.samples };
}

/** The first interim time from which every verdict had the final key; undefined if the last one still differed. */
export function timeToVerdict(interim, finalKey) {
  let since;
  for (const { t, doc } of interim) {
    if (verdictKey(doc) === finalKey) since ??= t;
    else since = undefined;
  }
  return since;
}

async function firstLine(file) {
  const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  for await (const line of lines) {
    lines.close();
    return JSON.parse(line);
  }
  return undefined;
}
