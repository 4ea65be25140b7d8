/**
 * What a watch reads by default, apart from the sampler that reads it: the CLI shows these in --help, and --help
 * must not load the sampler (and /proc's readers behind it) to say them.
 */

/**
 * PSS/USS are kept at most 2 s old by default: a verdict judged on Σ PSS that lags the RSS read every second by 6 s
 * (what a fixed 0.7% budget gave on a 9-process, 2 GB PyTorch tree) dates plateaus and steps late, and the early test
 * of a 15 s CI step sees a handful of PSS points. Small trees cost little at that age; the budget below caps what a
 * big one may take (BENCHMARKS.md §g: the ages and the CPU they cost).
 */
export const DEFAULT_PSS_EVERY = 2;

/**
 * At most 3% of one core for smaps_rollup reads (the kernel walks every page table to total it: ~10 ms per GiB resident on this project's machines): enough for 2 s freshness on
 * a 9-process, 2 GB tree (~2.2%); a bigger tree gets older PSS rather than more CPU (--smaps-budget raises the cap).
 */
export const DEFAULT_SMAPS_BUDGET = 0.03;

/**
 * Agents `watch` keeps at once (--max-agents; analysis/agent-placement.ts decides where). Each agent in a worker
 * forked before memleak came adds 1.3–3.5 MiB to the tree's Σ PSS (BENCHMARKS.md §g⁷; 3.5 MiB with lldb, 2026-12-02),
 * the watched parent's ~7 MiB: the watched process and three more.
 */
export const DEFAULT_MAX_AGENTS = 4;
