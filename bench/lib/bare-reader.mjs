/**
 * The baseline of section g: a Node process that does nothing but memleak's reads. It replays a read set captured
 * from memleak's own Sampler on the same tree (one list of paths per tick, cycled), on memleak's tick schedule:
 * open, read to the end, close; list directories. Its whole-process CPU is what those reads cost the kernel plus
 * the least a Node process can add to them.
 * Usage: node bare-reader.mjs READSET.json HZ SECONDS
 */
import { readFileSync } from "node:fs";
import { bareReads } from "./bare-reads.mjs";

const [file, hz, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const ticks = JSON.parse(readFileSync(file, "utf8"));
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

const started = performance.now();
for (let i = 0; performance.now() - started < seconds * 1000; i++) {
  bareReads(ticks[i % ticks.length]);
  await sleep(started + (i + 1) * (1000 / hz) - performance.now());
}
