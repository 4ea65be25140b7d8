/** The worker thread that works out interim verdicts (commands/interim-analyst.ts), so that sampling never waits. */
import { parentPort } from "node:worker_threads";
import { runInterim, type InterimJob } from "./interim.js";

parentPort?.on("message", (job: InterimJob) => parentPort!.postMessage(runInterim(job)));
