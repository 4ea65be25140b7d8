/**
 * The worker thread that works out interim verdicts (session/interim/analyst.ts), so that sampling never waits. A
 * verdict that throws is answered with the error, not left unanswered: the analyst would wait for it forever.
 */
import { parentPort } from "node:worker_threads";
import { runInterim, type InterimJob } from "./job.js";

parentPort?.on("message", (job: InterimJob) => {
  try {
    parentPort!.postMessage(runInterim(job));
  } catch (err) {
    parentPort!.postMessage({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
