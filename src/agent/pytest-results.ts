/**
 * Per-test results of the pytest plugin (src/agent/python/memleak_pytest.py): the shapes its messages are checked
 * against, what the verdict document's `tests` array holds, and what the reports show. Types and constants only, at
 * the bottom of the house: the agent's channel, the recording, the analysis and the reports all read them.
 */

/**
 * What a test's memory did: grew on every call after the warm-up (leak), grew but not on every call (one-off: a
 * cache filled once), grew only in RSS and malloc_trim(0) gave it back (fragmentation), did not grow (stable), or
 * grew during a single call, with nothing to compare it to (insufficient-data: repeat it).
 */
export const TEST_KINDS = ["leak", "one-off", "fragmentation", "stable", "insufficient-data"] as const;
export type TestKind = (typeof TEST_KINDS)[number];

/**
 * pass/fail: measured, within or over its limits (no limits: pass); error: the test itself failed before its calls
 * were done, so nothing was judged; crashed: the interpreter died while it ran; unmeasured: not a test function the
 * plugin calls (a doctest, a unittest case), so only its boundaries are known.
 */
export const TEST_RESULTS = ["pass", "fail", "error", "crashed", "unmeasured"] as const;
export type TestResultKind = (typeof TEST_RESULTS)[number];

/** Growth of the three numbers the plugin reads: Python's allocated blocks, malloc's in-use bytes, RssAnon bytes. */
export interface TestMetrics {
  allocatedBlocks: number;
  rssAnon: number;
  /** Absent where mallinfo2 is not there (musl, glibc < 2.33, jemalloc). */
  mallocInUse?: number;
}

export interface TestLimits {
  maxGrowth?: number;
  maxLeakPerCall?: number;
}

/** What the plugin measured of one test: the test-end message's content. */
export interface TestMeasurement {
  calls: number;
  warmupCalls: number;
  growth?: TestMetrics;
  /** Mean growth per call after the warm-up calls. */
  perCall?: TestMetrics;
  /** The growth the limits judge: the larger of malloc's and RSS's (RSS after malloc_trim when it was tried). */
  growthBytes?: number;
  perCallBytes?: number;
  /** RssAnon growth left after malloc_trim(0), when the plugin tried it. */
  anonAfterTrim?: number;
  kind: TestKind;
  limit?: TestLimits;
  result: TestResultKind;
  /** Why it failed its limit. */
  message?: string;
  /** A leak with repeats: the container the test kept filling, its length after the calls, and what holds it. */
  holder?: { container: string; length: number; found: boolean; path?: string; why?: string };
}

/** A test's boundary as the plugin sends it (and the recording keeps it): t in seconds since the epoch. */
export type TestMark =
  | { type: "test-start"; pid: number; t: number; nodeid: string }
  | ({ type: "test-end"; pid: number; t: number; nodeid: string } & Partial<TestMeasurement>);

/** One entry of the verdict document's `tests`: start and end are seconds since the first sample. */
export interface TestResult extends TestMeasurement {
  nodeid: string;
  pid: number;
  start: number;
  end?: number;
}
