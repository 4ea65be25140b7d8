/** The report's own stylesheet: one calm page, readable printed, the verdict's colour carried through. */
export const PAGE_CSS = `
:root { --ink: #1d2430; --muted: #5b6472; --line: #e3e6ea; --bg: #f7f8fa;
  --leak: #c62828; --fragmentation: #b26a00; --cow: #b26a00; --cgroup-artefact: #7b1fa2;
  --plateau: #2e7d32; --stable: #2e7d32; --insufficient-data: #6b7280; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 20px; margin: 0 0 8px; font-weight: 600; }
h1 .title { color: var(--muted); font-weight: 400; margin-left: 8px; overflow-wrap: anywhere; }
h2 { font-size: 16px; margin: 0 0 10px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #eef0f3; padding: 1px 4px; border-radius: 3px; overflow-wrap: anywhere; }
dl.target { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 18px; color: var(--muted); font-size: 13px; }
dl.target dt { font-weight: 600; }
dl.target dd { margin: 0; }
.banner { background: #fff; border: 1px solid var(--line); border-left: 8px solid var(--k, #888); border-radius: 6px; padding: 16px 20px; margin-bottom: 18px; }
.banner .kind { color: var(--k, #888); font-size: 24px; font-weight: 700; letter-spacing: 0.02em; }
.banner .subject { color: var(--muted); margin: 2px 0 8px; }
.banner .summary { font-size: 17px; margin: 0; }
.banner .rate { margin: 6px 0 0; color: var(--muted); }
.kind-leak { --k: var(--leak); } .kind-fragmentation { --k: var(--fragmentation); } .kind-cow { --k: var(--cow); }
.kind-cgroup-artefact { --k: var(--cgroup-artefact); } .kind-plateau { --k: var(--plateau); }
.kind-stable { --k: var(--stable); } .kind-insufficient-data { --k: var(--insufficient-data); }
.columns { display: grid; grid-template-columns: minmax(280px, 2fr) 3fr; gap: 18px; margin-bottom: 18px; }
@media (max-width: 900px) { .columns { grid-template-columns: 1fr; } }
section.evidence, section.advice, section.others, section.gates, section.tests, figure.chart { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 14px 18px; }
section.others, section.gates, section.tests { margin-bottom: 18px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 3px 8px 3px 0; vertical-align: top; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
/* A header or a first-column word is never cut ("met/ric", "FAI/L"): labels wrap between words only. */
th, td:first-child { overflow-wrap: normal; word-break: normal; }
thead th, .gates td:first-child, .others td:first-child { white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
section.sites { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 14px 18px; margin-bottom: 18px; overflow-x: auto; }
section.sites td:last-child { overflow-wrap: anywhere; }
footer.about { margin-top: 28px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); padding-top: 10px; }
section.others, section.gates, section.tests { overflow-x: auto; }
section.tests tr.leak td:nth-child(2), section.tests tr.fail td:last-child { color: #b3261e; font-weight: 600; }
.evidence th { font-weight: 500; color: var(--muted); }
.evidence td { font-variant-numeric: tabular-nums; text-align: right; }
.advice p, .advice li { margin: 0 0 8px; }
.advice ul { padding-left: 20px; margin: 0 0 8px; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; background: var(--k, #888); white-space: nowrap; }
tr.fail td:first-child { color: var(--leak); font-weight: 700; }
tr.pass td:first-child { color: var(--stable); font-weight: 700; }
tr.inconclusive td:first-child { color: var(--fragmentation); font-weight: 700; }
.chart-group { margin-top: 26px; }
.chart-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(520px, 100%), 1fr)); gap: 16px; }
.chart-wide { display: grid; gap: 16px; }
figure.chart { margin: 0; min-width: 0; }
figure.chart.is-verdict { border-color: var(--k, #888); box-shadow: 0 0 0 2px var(--k, #888); }
.chart-head { display: flex; gap: 10px; align-items: baseline; justify-content: space-between; font-weight: 600; }
.chart-title { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.chart-detail { color: var(--muted); font: 12px ui-monospace, monospace; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; margin-bottom: 6px; }
.chart-plot { width: 100%; }
.note { color: var(--muted); }
.uplot .u-legend { font-size: 12px; }
`;
