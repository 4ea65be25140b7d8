/**
 * The accuracy table as Markdown (BENCHMARKS.md's section, and what `npm run accuracy` prints), and its reliability
 * diagram as SVG: written from scored runs (accuracy.ts), nothing measured here.
 */
import { VERDICT_KINDS, type VerdictKind } from "../../src/base/verdict-kinds.js";
import {
  calibration,
  confusion,
  layerAndHolder,
  leakGate,
  perKind,
  type CalibrationBin,
  type Scored,
} from "./accuracy.js";

const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? "–" : `${Math.round(x * 100)}%`);
const frac = (right: number, n: number) => (n === 0 ? "–" : `${right}/${n} (${pct(right / n)})`);

function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Short names for the matrix's columns. */
const SHORT: Record<VerdictKind | "none", string> = {
  leak: "leak",
  fragmentation: "frag",
  "cgroup-artefact": "cgroup",
  cow: "cow",
  plateau: "plateau",
  stable: "stable",
  "insufficient-data": "insuff",
  none: "none",
};

export function confusionTable(runs: readonly Scored[]): string {
  const m = confusion(runs);
  const cols: (VerdictKind | "none")[] = [...VERDICT_KINDS, "none"];
  const rows = VERDICT_KINDS.filter((k) => m.has(k)).map((k) => [
    `**${k}**`,
    ...cols.map((c) => {
      const n = m.get(k)!.get(c) ?? 0;
      return n === 0 ? "·" : c === k ? `**${n}**` : String(n);
    }),
  ]);
  return table(["labelled ↓ / said →", ...cols.map((c) => SHORT[c])], rows);
}

export function kindTable(runs: readonly Scored[]): string {
  return table(
    ["kind", "programs' runs", "verdicts", "right", "precision", "recall"],
    perKind(runs)
      .filter((k) => k.labelled > 0 || k.called > 0)
      .map((k) => [k.kind, k.labelled, k.called, k.right, pct(k.precision), pct(k.recall)]),
  );
}

export function calibrationTable(bins: readonly CalibrationBin[]): string {
  return table(
    ["confidence", "verdicts", "mean confidence", "right", "95% interval", "within it"],
    bins.map((b) => [
      `${pct(b.from)}–${pct(b.to)}`,
      b.n,
      pct(b.meanConfidence),
      b.n ? `${b.right} (${pct(b.share)})` : "–",
      b.n ? `${pct(b.low)}–${pct(b.high)}` : "–",
      b.n === 0 ? "–" : b.calibrated ? "yes" : "**no**",
    ]),
  );
}

/** Every run that was wrong, with what it said: the list to read first. */
export function wrongList(runs: readonly Scored[]): string {
  const wrong = runs.filter((r) => !r.right);
  if (wrong.length === 0) return "No run was wrong.";
  return table(
    ["program", "mode", "labelled", "said", "confidence", "why"],
    wrong.map((r) => [
      r.name,
      r.mode,
      r.expect,
      r.got,
      pct(r.confidence),
      r.timedOut ? "timed out" : (r.error ?? (r.kindRight ? "another subject" : "")),
    ]),
  );
}

/** The headline figures, in one sentence. */
export function headline(runs: readonly Scored[]): string {
  const right = runs.filter((r) => r.right).length;
  const gate = leakGate(runs);
  return (
    `${frac(right, runs.length)} of runs right; leak gate: ${gate.falseAlarms} false alarm${gate.falseAlarms === 1 ? "" : "s"} ` +
    `in ${gate.others} runs of programs that do not leak, ${gate.missed} miss${gate.missed === 1 ? "" : "es"} in ${gate.leaks} leaking`
  );
}

export function accuracyMarkdown(runs: readonly Scored[], title: string): string {
  const gate = leakGate(runs);
  const lh = layerAndHolder(runs);
  const times = runs.filter((r) => r.right && r.firstRightAt !== undefined).map((r) => r.firstRightAt!);
  times.sort((a, b) => a - b);
  const median = times.length ? times[Math.floor(times.length / 2)]! : undefined;
  return [
    `### ${title}`,
    "",
    headline(runs) + ".",
    "",
    kindTable(runs),
    "",
    confusionTable(runs),
    "",
    table(
      ["figure", "value"],
      [
        ["leak verdicts on programs that do not leak", frac(gate.falseAlarms, gate.others)],
        ["leaks missed", frac(gate.missed, gate.leaks)],
        ["progress lines saying `leak` on programs that do not leak", frac(gate.falseLeakLines, gate.progressLines)],
        ["runs of such programs with at least one such line", frac(gate.runsWithFalseLeakLine, gate.others)],
        ["layer of a leak found, where labelled", frac(lh.layerRight, lh.layerLabelled)],
        ["holder of a leak found, where labelled", frac(lh.holderRight, lh.holderLabelled)],
        ["first right progress line, median (right runs)", median === undefined ? "–" : `${median} s`],
        ["runs that timed out or gave no verdict", String(runs.filter((r) => r.got === "none").length)],
      ],
    ),
    "",
    calibrationTable(calibration(runs)),
    "",
    wrongList(runs),
  ].join("\n");
}

/**
 * The reliability diagram: each bin's mean confidence (x) against its share right (y), with its interval, and the
 * diagonal a calibrated tool lies on. Plain SVG, no dependency.
 */
export function reliabilitySvg(series: { label: string; bins: readonly CalibrationBin[]; colour: string }[]): string {
  const W = 420;
  const H = 420;
  const M = 50;
  const x = (v: number) => M + v * (W - 2 * M);
  const y = (v: number) => H - M - v * (H - 2 * M);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H + 20 * series.length}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#999" stroke-dasharray="4 3"/>`,
    `<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(0)}" stroke="black"/>`,
    `<line x1="${x(0)}" y1="${y(0)}" x2="${x(0)}" y2="${y(1)}" stroke="black"/>`,
  ];
  for (let v = 0; v <= 1.0001; v += 0.2) {
    parts.push(`<text x="${x(v)}" y="${y(0) + 16}" text-anchor="middle">${Math.round(v * 100)}%</text>`);
    parts.push(`<text x="${x(0) - 6}" y="${y(v) + 4}" text-anchor="end">${Math.round(v * 100)}%</text>`);
  }
  parts.push(`<text x="${W / 2}" y="${H - 12}" text-anchor="middle">confidence memleak said (bin mean)</text>`);
  parts.push(
    `<text x="14" y="${H / 2}" text-anchor="middle" transform="rotate(-90 14 ${H / 2})">share of those verdicts right</text>`,
  );
  series.forEach((s, i) => {
    for (const b of s.bins.filter((b) => b.n > 0)) {
      const cx = x(b.meanConfidence);
      parts.push(`<line x1="${cx}" y1="${y(b.low)}" x2="${cx}" y2="${y(b.high)}" stroke="${s.colour}"/>`);
      parts.push(
        `<circle cx="${cx}" cy="${y(b.share)}" r="${3 + Math.sqrt(b.n)}" fill="${s.colour}" fill-opacity="0.6"><title>${s.label}: ${b.n} verdicts</title></circle>`,
      );
    }
    parts.push(`<circle cx="${M}" cy="${H + 10 + 20 * i}" r="5" fill="${s.colour}"/>`);
    parts.push(`<text x="${M + 10}" y="${H + 14 + 20 * i}">${s.label}</text>`);
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}
