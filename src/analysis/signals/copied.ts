/**
 * Which of the parent's objects a copying process copied (issue 51): its agent's answer (memleak_cow.py, asked by
 * session/cow-ask.ts) put on the copy-on-write finding, each container with how its pages came to be copied, which
 * decides the advice:
 * - reads: Python objects that are read — each read writes the object's reference count, copying its page. Only
 *   another form of the data helps (one buffer: a numpy array, Arrow, one bytes object with offsets).
 * - collector: the same, in objects the garbage collector tracks (tuples, lists, dicts) and the program did not freeze:
 *   its collections write to every one's header, read or not. gc.freeze() before forking stops that part.
 * - writes: the container's own buffer (a list's item array, an array's data), which reads never change: the worker
 *   writes to it, and its copy is the price of that, expected, not a leak.
 * - none: read without being copied (one buffer, no per-item counts): said, so the user knows what already works.
 *
 * A worker that was asked (it copied past the floor while memleak watched: session/cow-ask.ts) but is judged stable or a
 * plateau over its life says what its look found read without being copied (putKept). Workers that never copied are
 * not looked at: loading the look's module copies 1.5-2.9 MiB of a torch worker's pages, and a numpy dataset's tree of
 * two looked-at workers then read as a plateau instead of stable.
 */
import type { CopiedObject, CowResult } from "../../agent/agent-results.js";
import { levels, minGrowth } from "../assess.js";
import { COW_MIN_SHARE, copiedAtFirstSight } from "./cow.js";
import type { Context } from "../context.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase, type Phrase } from "../phrases.js";
import type { ProcessSeries } from "../../series/series.js";
import type { CopiedField, CopyHow } from "../types.js";

/** Under this share of a container's bytes (and MIN_COPIED), it was read without being copied. */
export const NOT_COPIED_SHARE = 0.05;
export const MIN_COPIED = 1024 * 1024;
/** The collector's part is named when tracked objects hold at least this share of the items' private bytes. */
export const COLLECTOR_SHARE = 0.5;
/** Data big enough that copying it would matter: a worker that read it without copying it is told so. */
export const KEPT_MIN_BYTES = 8 * 2 ** 20;
/** Containers advised on, largest private first. */
const ADVISED = 3;
/**
 * Where the containers named hold this share of the worker's private memory when it looked, the general advice (keep
 * read-only data out of Python objects, gc.freeze()) is left out: the containers' own advice says all, and after
 * "written by the worker: an expected copy" of a numpy array the general advice contradicted it.
 */
export const NAMED_ENOUGH = 0.8;

const privateOf = (o: CopiedObject): number => o.itemsPrivate + o.storagePrivate;

export function copyHow(o: CopiedObject): CopyHow {
  const p = privateOf(o);
  if (p < MIN_COPIED || p < NOT_COPIED_SHARE * o.bytes) return "none";
  if (o.storagePrivate > o.itemsPrivate) return "writes";
  return o.trackedPrivate >= COLLECTOR_SHARE * o.itemsPrivate ? "collector" : "reads";
}

export function copiedField(r: CowResult, copied: number): CopiedField {
  const objects = r.objects.map((o) => ({
    name: o.name,
    what: o.what,
    length: o.length,
    bytes: Math.round(o.bytes),
    private: Math.round(privateOf(o)),
    tracked: Math.round(o.trackedPrivate),
    how: copyHow(o),
    sampled: o.sampled,
    ...(o.sharedWith !== undefined && { sharedWith: o.sharedWith }),
  }));
  return {
    pid: r.pid,
    objects,
    named: objects.reduce((sum, o) => sum + (o.how === "none" ? 0 : o.private), 0),
    copied: Math.round(copied),
    ...(r.privateDirty !== undefined && { privateAtLook: Math.max(0, r.privateDirty - (r.walkBytes ?? 0)) }),
    ...(r.frozen !== undefined && { frozen: r.frozen }),
    walk: {
      ...(r.ms !== undefined && { ms: r.ms }),
      ...(r.cpuMs !== undefined && { cpuMs: r.cpuMs }),
      ...(r.walkBytes !== undefined && { bytes: r.walkBytes }),
    },
    ...(r.why !== undefined && { why: r.why }),
  };
}

/**
 * Puts what `pid` copied on a copy-on-write finding: the field, the evidence, and advice per container copied (the
 * general advice stays after it, for what the walk did not reach, unless the containers hold NAMED_ENOUGH of it).
 * Nothing when the agent was not asked or did not answer.
 */
export function putCopied(f: JudgedFinding, pid: number, copied: number, ctx: Context): void {
  const r = ctx.agentResults?.copied?.get(pid);
  if (!r) return;
  const field = copiedField(r, copied);
  f.copied = field;
  f.evidence.copiedNamedBytes = field.named;
  const top = field.objects[0];
  if (top && top.how !== "none") f.evidence.copiedMost = top.name;
  const advised = field.objects.filter((o) => o.how !== "none").slice(0, ADVISED);
  const kept = field.objects.filter((o) => o.how === "none" && o.sharedWith === undefined).slice(0, 1);
  const general = namedEnough(field) ? [] : f.advice;
  f.advice = [...[...advised, ...kept].map((o) => objectAdvice(o, field)), ...general];
}

/** The containers named hold nearly all the worker held privately when it looked: nothing left for general advice. */
const namedEnough = (x: CopiedField): boolean =>
  x.privateAtLook !== undefined && x.named > 0 && x.named >= NAMED_ENOUGH * x.privateAtLook;

/** The advice for one container by how it was copied (and whether the program froze its objects). */
function objectAdvice({ sampled: _, ...o }: CopiedField["objects"][number], field: CopiedField): Phrase {
  return phrase("advice.cow-object", { ...o, pid: field.pid, frozen: (field.frozen ?? 0) > 0 });
}

/**
 * On a forked worker that did not copy (stable, a plateau): the containers of KEPT_MIN_BYTES or more that its agent's
 * look found read without being copied, largest first, in its sentence and its advice. Nothing when the look found one
 * copied (the copy-on-write rule decides about copying, not this), found none big enough, or could not look.
 */
export function putKept(f: JudgedFinding, ps: ProcessSeries, ctx: Context): void {
  const r = ctx.agentResults?.copied?.get(ps.pid);
  const uss = ps.metrics.uss;
  if (!r || r.why !== undefined || !uss || uss.length < 2) return;
  const u = levels(uss.ys);
  const field = copiedField(r, Math.max(0, u.end - u.start));
  if (field.objects.some((o) => o.how !== "none")) return;
  const kept = field.objects.filter((o) => o.bytes >= KEPT_MIN_BYTES).sort((a, b) => b.bytes - a.bytes);
  const top = kept[0];
  if (!top) return;
  f.copied = { ...field, objects: kept };
  f.evidence.copiedNamedBytes = 0;
  const { sampled: _, ...o } = top;
  f.summary = phrase("copied.in-summary", { of: f.summary, ...o });
  f.advice = [...f.advice, objectAdvice(top, field)];
}

/**
 * On a forked worker that is stable or a plateau while watched but had copied its parent's pages before memleak first
 * read it (signals/cow.ts copiedAtFirstSight; a pool worker reading its dataset in its first second): how much, in its
 * sentence and evidence, with what its look found copied (session/cow-ask.ts asks such a worker at once) and the advice
 * for each container. Its kind stays what its trend says: nothing grows while watched. Copying worth saying passes
 * copy-on-write's floors (its bytes, and a share of the worker's RSS, as cow.ts copyOnWrite). True when it said so
 * (putKept then has nothing to add).
 */
export function putCopiedBefore(f: JudgedFinding, ps: ProcessSeries, ctx: Context): boolean {
  const facts = copiedBefore(ps);
  if (!facts || f.subject.type !== "process") return false;
  const { copied, uss, anon } = facts;
  f.evidence.copiedBeforeBytes = Math.round(copied);
  const r = ctx.agentResults?.copied?.get(ps.pid);
  const field = r && r.why === undefined ? copiedField(r, copied) : undefined;
  const advised = field?.objects.filter((o) => o.how !== "none").slice(0, ADVISED) ?? [];
  const { pid, command } = f.subject;
  const general = phrase("advice.cow-before", { pid, command, copied, uss, anon });
  if (field && advised.length > 0) {
    f.copied = field;
    f.evidence.copiedNamedBytes = field.named;
    f.evidence.copiedMost = advised[0]!.name;
    const { sampled: _, ...object } = advised[0]!;
    f.summary = phrase("copied.before-summary", { of: f.summary, ...facts, object });
    f.advice = [...advised.map((o) => objectAdvice(o, field)), ...(namedEnough(field) ? [] : [general]), ...f.advice];
  } else {
    f.summary = phrase("copied.before-summary", { of: f.summary, ...facts });
    f.advice = [general, ...f.advice];
  }
  return true;
}

/**
 * On a copy-on-write finding: what the worker had copied before memleak first read it, beside the rise it copies while
 * watched (a gunicorn worker with 60.6 MiB private when a watch began said only "USS 62.8 MiB → 75.1 MiB", its
 * sibling, flat, "it had copied 60.4 MiB …"). In its sentence and evidence.
 */
export function noteCopiedBefore(f: JudgedFinding, ps: ProcessSeries): void {
  const facts = copiedBefore(ps);
  if (!facts) return;
  f.evidence.copiedBeforeBytes = Math.round(facts.copied);
  f.summary = phrase("copied.before-summary", { of: f.summary, ...facts });
}

/**
 * What a forked worker had copied of its parent's pages before its first reading, with that reading's USS and anon and
 * its parent's anon, when it passes copy-on-write's floors (its bytes, and a share of the worker's RSS, as cow.ts
 * copyOnWrite does).
 */
function copiedBefore(
  ps: ProcessSeries,
): { copied: number; uss: number; anon: number; parentAnon: number } | undefined {
  const first = firstReading(ps);
  if (!first) return undefined;
  const copied = copiedAtFirstSight(first, ps.parentAnonAtStart);
  const rssLevel = ps.metrics.rss?.max() ?? first.anon;
  if (copied === undefined || copied < Math.max(minGrowth(first.anon), COW_MIN_SHARE * rssLevel)) return undefined;
  return { copied, uss: first.uss, anon: first.anon, parentAnon: ps.parentAnonAtStart! };
}

/** A process's first USS reading and its anon at the same sample (or its first), or undefined without both. */
function firstReading(ps: ProcessSeries): { uss: number; anon: number } | undefined {
  const uss = ps.metrics.uss;
  const anon = ps.metrics.anon;
  if (!uss || !anon || uss.length === 0 || anon.length === 0) return undefined;
  const at = uss.xs[0]!;
  const i = anon.xs.indexOf(at);
  return { uss: uss.ys[0]!, anon: anon.ys[i >= 0 ? i : 0]! };
}
