/**
 * What a finding says, as facts. Analysis decides and names each sentence it wants said (`say`: the subject and the
 * rule's branch) with the numbers and names that sentence needs; report/wording/ turns them into words. Analysis
 * writes no English and formats no number, so the same facts can be told in full (the verdict), short (the live
 * view's "so far" line), or in another form later, and the rules can be read without the prose in the way.
 *
 * One interface holds every sentence, so that the wording module must word each one (report/wording/index.ts is
 * typed against it, and a sentence without words does not compile).
 */
import type { MetricName, Rate, Subject } from "./types.js";

export interface PhraseFacts {
  /** Words still written by analysis: a sentence not yet moved to report/wording/. */
  text: { text: string };

  // classify.ts: findings that explain each other
  /** A tree's or cgroup's leak that processes' leaks account for. */
  "reconcile.attributed": { of: Phrase; pids: string };
  /** Tree or cgroup growth that processes' garbage backlog accounts for: undecided until the next full collection. */
  "reconcile.backlog-waiting": { subject: "tree" | "cgroup"; growth: number; pids: string };
  /** …or given back at one. */
  "reconcile.backlog-released": { subject: "tree" | "cgroup"; growth: number; pids: string };
  /** Tree or cgroup growth that copying after fork accounts for. */
  "reconcile.cow": { subject: "tree" | "cgroup"; growth: number; copiers: number; copied: number };
  /** A shared cgroup's growth that the watched tree does not explain; an artefact's own sentence follows. */
  "reconcile.outside": { growth: number; rate: Rate | undefined; tree: number; others: number[]; othersAnonGrowth: number | undefined; artefact: Phrase | undefined };
  /** The cgroup holds processes outside the watched tree. */
  "cgroup.others": { others: number[] };
  /** No sample at all. */
  "verdict.no-samples": Record<string, never>;

  // signals/tree.ts
  "tree.insufficient": { reason: string | undefined };
  "tree.leak": { metric: MetricName; start: number; end: number; rate: Rate };
  "tree.plateau": { metric: MetricName; end: number };
  "tree.stable": { metric: MetricName; start: number; end: number };

  // signals/cgroup.ts
  "cgroup.insufficient": { path: string; reason: string | undefined };
  "cgroup.stable": CgroupUsageFacts;
  "cgroup.leak": CgroupUsageFacts & { rate: Rate };
  "cgroup.plateau": CgroupUsageFacts & { growth: number };
  "cgroup.shmem": { shmem: number | undefined };
  "cgroup.artefact": ArtefactFacts;
  /** memleak's agents' memory, taken out of the usage judged. */
  "cgroup.agents": { bytes: number; processes: number };

  // advice: src/advice/<kind>.md, one section per variant, filled with these facts
  "advice.insufficient-data": { reason: string | undefined } | { backlogPids: string };
  "advice.leak": LeakAdviceFacts;
  "advice.cgroup-artefact": Omit<ArtefactFacts, "cache" | "processesMetric"> & {
    /** Page cache growth, when memory.stat reports it; the processes' mapped files' growth; dirty pages at the end. */
    cache: number | undefined;
    mapped: number | undefined;
    dirty: number | undefined;
    treeMetric: MetricName;
  };
  "advice.plateau": { growth: number; level: number; levelFrom: number | undefined };
  "advice.stable": { subject: Subject["type"]; metric: MetricName; growth: number; seconds: number; noise: number | undefined };
  "advice.cow-tree": { subject: "tree" | "cgroup"; growth: number; copiers: number; copied: number };
}

/** The cgroup's usage as judged (memleak's agents taken out, when they were). */
export interface CgroupUsageFacts {
  start: number;
  end: number;
  agentsTakenOut: boolean;
}

/** Cgroup growth that page cache or kernel memory explains, and what the processes did meanwhile. */
export interface ArtefactFacts {
  variant: "kernel" | "mapped-file" | "page-cache";
  usage: number;
  processes: number | undefined;
  /** What the processes' growth was measured in (the tree's metric), when they were measured. */
  processesMetric: MetricName | undefined;
  kernel: number | undefined;
  cache: number;
  /** The mapped files, as the evidence lists them (signals/mapped.ts), for a mapped-file artefact. */
  files: string | undefined;
  wsStart: number | undefined;
  wsEnd: number | undefined;
}

/** What leak.md's sections fill in: the rate, and the process or the tree's process count as the variant needs. */
export type LeakAdviceFacts =
  | { variant: "process" | "process-traced" | "worker" | "worker-traced"; rate: Rate; pid: number; ppid: number; command: string }
  | { variant: "tree"; rate: Rate; processesStart: number; processesEnd: number }
  | { variant: "cgroup" | "cgroup-shmem"; rate: Rate };

export type PhraseName = keyof PhraseFacts;

/** One sentence to be worded: its name and its facts. */
export type Phrase = { [K in PhraseName]: { say: K; facts: PhraseFacts[K] } }[PhraseName];

/** A phrase, typed by its name. */
export const phrase = <K extends PhraseName>(say: K, facts: PhraseFacts[K]): Phrase => ({ say, facts }) as Phrase;

/** Words analysis still writes itself (see PhraseFacts.text). */
export const text = (t: string): Phrase => phrase("text", { text: t });
