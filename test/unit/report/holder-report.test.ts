/**
 * What holds the leak in every report: the terminal's "what holds it", the HTML's panel, the step summary, and the
 * JSON schema. Names come from the watched program (its variables and dict keys), so each report escapes them as it
 * must: no terminal control, no markup, no markdown.
 */
import { describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../../src/analysis/types.js";
import { stepSummary } from "../../../src/report/github.js";
import { holderPanel } from "../../../src/report/html/holder-panel.js";
import { bannerHtml } from "../../../src/report/html/banner.js";
import { renderVerdict } from "../../../src/report/terminal/verdict-text.js";
import { verdictValidator } from "../../helpers/verdict-schema.js";

const HOSTILE = "__main__.CACHE['<script>x</script>|`\u001b[31m']";

function withHolder(holder: NonNullable<VerdictDocument["verdict"]["holder"]>): VerdictDocument {
  const verdict = {
    kind: "leak",
    confidence: 0.9,
    subject: { type: "process", pid: 42, starttime: 1, command: "python3 app.py", ppid: 1, isRoot: true },
    pid: 42,
    metric: "anon",
    summary: "PID 42 (python3 app.py) grows",
    evidence: { holder: holder.path ?? "not found" },
    advice: "bound it",
    caveats: [],
    holder,
  };
  return {
    schema: "memleak.verdict/1",
    verdict,
    findings: [verdict],
    target: { pid: 42 },
    window: { start: 0, end: 60, warmup: 0, samples: 60, interval: 1 },
  } as unknown as VerdictDocument;
}

const found = {
  container: "list of dict",
  length: 158_800,
  found: true,
  path: "app.state.service._history",
  root: "module global",
  hops: [
    { kind: "module global", name: "app.state.service" },
    { kind: "attribute", name: "_history" },
  ],
  search: { levels: 2, calls: 2, objects: 3, ms: 6.4, longestPauseMs: 2.01 },
};

describe("what holds it, in the reports", () => {
  it("named by the census's walk on a heap too big to search: said so, not as a search of no level", () => {
    const near = {
      ...found,
      path: "__main__.LOG",
      hops: [{ kind: "module global", name: "__main__.LOG" }],
      search: { levels: 0, calls: 0, objects: 0, ms: 0, longestPauseMs: 0 },
    };
    const text = renderVerdict(withHolder(near), false);
    expect(text).toContain("named by the census's walk near the program's globals: no search over a heap");
    expect(text).not.toContain("searched 0 levels");
    const panel = holderPanel(withHolder(near).verdict);
    expect(panel).toContain("Found inside the process by memleak's agent; named by the census&#39;s walk");
    expect(panel).not.toContain("toward the roots");
  });

  it("the terminal: the path, the hops and what the search cost", () => {
    const text = renderVerdict(withHolder(found), false);
    expect(text).toContain(
      [
        "what holds it",
        "  app.state.service._history (list of dict, 158,800 items)",
        "  module global app.state.service → attribute _history",
        "  searched 2 levels (2 passes over the heap) in 6.4 ms; longest pause 2.01 ms",
      ].join("\n"),
    );
  });

  it("a running frame's local: said once as the local it is, not 'thread frame thread \"MainThread\": …'", () => {
    // The agent's name for it (memleak_holder.py), as fixtures/recordings/torch_loader_history.jsonl holds it.
    const name = 'thread "MainThread": train() local history';
    const text = renderVerdict(
      withHolder({ ...found, path: name, root: "thread frame", hops: [{ kind: "thread frame", name }] }),
      false,
    );
    expect(text).toContain('  local history of train(), running in thread "MainThread"\n');
    expect(text).not.toContain("thread frame thread");
  });

  it("the terminal says when no root was found, and why", () => {
    const text = renderVerdict(
      withHolder({
        container: "dict of str",
        length: 900,
        found: false,
        why: "no root within 12 references",
        search: found.search,
      }),
      false,
    );
    expect(text).toContain("  not found (dict of str, 900 items): no root within 12 references");
  });

  it("a hostile name reaches no report live", () => {
    const x = { ...found, path: HOSTILE, hops: [{ kind: "module global", name: HOSTILE }] };
    expect(renderVerdict(withHolder(x), false)).not.toContain("\u001b[31m");
    const html = holderPanel(withHolder(x).verdict);
    expect(html).toContain("&lt;script&gt;");
    expect(html).not.toContain("<script>");
    const md = stepSummary(withHolder(x));
    expect(md).toContain("**What holds it:** __main__.CACHE&#91;'&lt;script&gt;x&lt;/script&gt;\\|&#96;");
    expect(md).not.toContain("<script>");
  });

  it("where the root is assigned, when the agent found the line: in the terminal, the HTML panel and the step summary", () => {
    const x = { ...found, where: { file: "/srv/app/state.py", line: 9 } };
    // The chain goes past its root: the line is the root's, said by name.
    expect(renderVerdict(withHolder(x), false)).toContain(
      "  module global app.state.service → attribute _history\n  app.state.service assigned at /srv/app/state.py:9\n  searched 2 levels",
    );
    expect(holderPanel(withHolder(x).verdict)).toContain(
      '<p class="holder-where">app.state.service assigned at /srv/app/state.py:9</p>',
    );
    expect(stepSummary(withHolder(x))).toContain("\napp.state.service assigned at /srv/app/state.py:9\n");
    // A root that is the holder itself: the line is its own.
    const global = { ...x, hops: [{ kind: "module global", name: "app.state.history" }] };
    expect(renderVerdict(withHolder(global), false)).toContain(
      "  module global app.state.history\n  assigned at /srv/app/state.py:9\n",
    );
    expect(holderPanel(withHolder(global).verdict)).toContain(
      '<p class="holder-where">Assigned at /srv/app/state.py:9</p>',
    );
    // Without it, no such line anywhere.
    expect(renderVerdict(withHolder(found), false)).not.toContain("assigned at");
    expect(holderPanel(withHolder(found).verdict)).not.toContain("holder-where");
  });

  it("the HTML panel lists each hop with its kind", () => {
    expect(holderPanel(withHolder(found).verdict)).toContain(
      '<ol class="hops"><li><span class="hop-kind">module global</span> <code>app.state.service</code></li><li><span class="hop-kind">attribute</span> <code>_history</code></li></ol>',
    );
  });

  it("the JSON schema takes a finding's holder, and refuses one without its search's cost", () => {
    const validate = verdictValidator();
    expect(validate(withHolder(found)), JSON.stringify(validate.errors)).toBe(true);
    const { search: _, ...noCost } = found;
    expect(validate(withHolder(noCost as typeof found))).toBe(false);
  });
});

describe("watch --trace-python's window in the reports", () => {
  it("the sites are those that grew during the window, with what it cost the program", () => {
    const doc = withHolder(found);
    doc.verdict.sites = [
      { file: "/srv/app/views.py", line: 17, sizeDiff: 3 * 2 ** 20, countDiff: 500, size: 9 * 2 ** 20 },
    ];
    Object.assign(doc.verdict.evidence, {
      traceWindowSeconds: 15.1,
      traceCpuShare: 0.0262,
      traceCpuShareBefore: 0.009,
      tracemallocBytes: 1.41 * 2 ** 20,
    });
    const cost =
      "tracemalloc ran 15.1 s in the program, then was stopped and its traces freed: the program used 2.6% of a core meanwhile (0.9% just before), tracemalloc itself 1.41 MiB";
    const text = renderVerdict(doc, false, undefined, 400);
    expect(text).toContain("allocation sites that grew during the trace window (tracemalloc)");
    expect(text).toContain(`  ${cost}`);
    const html = bannerHtml(doc, "t");
    expect(html).toContain("<h2>Allocation sites that grew during the trace window</h2>");
    expect(html).toContain(`${cost}.</p>`);
  });

  it("a GPU leak's holder: where its items' tensors are and how much each keeps there, in every report and the schema", () => {
    const x = {
      ...found,
      container: "list of Tensor",
      length: 120,
      path: "__main__.all_logits",
      device: "cuda:0",
      deviceBytesPerItem: 4 * 2 ** 20,
    };
    const doc = withHolder(x);
    expect(renderVerdict(doc, false)).toContain(
      "  __main__.all_logits (list of Tensor, 120 items, 4.00 MiB each on cuda:0)",
    );
    expect(holderPanel(doc.verdict)).toContain(
      "<code>__main__.all_logits</code> holds the growing list of Tensor, 120 items, 4.00 MiB each on cuda:0.",
    );
    expect(stepSummary(doc)).toContain("(list of Tensor, 120 items, 4.00 MiB each on cuda:0)");
    const validate = verdictValidator();
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    // A graph's holder whose nodes were counted to the agent's bound: lengthCapped is in the schema too.
    const capped = withHolder({ ...found, container: "autograd graph of a Tensor", lengthCapped: true });
    expect(validate(capped), JSON.stringify(validate.errors)).toBe(true);
  });

  it("a GPU leak's allocation sites: headed as the allocator's history, each line's function and the library frame it went through, what the window cost", () => {
    const doc = withHolder(found);
    doc.verdict.sitesFrom = "cuda-history";
    doc.verdict.sites = [
      {
        file: "/srv/train/eval.py",
        line: 19,
        sizeDiff: 40 * 2 ** 20,
        countDiff: 10,
        size: 40 * 2 ** 20,
        function: "validate_batch",
        via: "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py:114 forward",
      },
    ];
    Object.assign(doc.verdict.evidence, {
      gpuHistorySeconds: 10,
      gpuHistoryBlocks: 10,
      gpuHistoryBytes: 40 * 2 ** 20,
      gpuRequestsPerSecondBefore: 200,
      gpuRequestsPerSecondDuring: 190,
    });
    const cost =
      "PyTorch's caching allocator recorded the stack of each block allocated for 10 s, then stopped; the lines are those whose blocks were still alive at the end (10 blocks, 40.0 MiB): the program made 190 allocation requests a second meanwhile, 200 just before (its steps at 0.95× their rate)";
    const text = renderVerdict(doc, false, undefined, 400);
    expect(text).toContain(
      "CUDA allocation sites still held at the end of the allocator's history window\n" +
        "    +40.0 MiB      +10  /srv/train/eval.py:19 validate_batch\n" +
        "                        via /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:114 forward\n" +
        `  ${cost}`,
    );
    const html = bannerHtml(doc, "t");
    expect(html).toContain("<h2>CUDA allocation sites still held at the end of the history window</h2>");
    expect(html).toContain(`${cost.replace("PyTorch's", "PyTorch&#39;s")}.</p>`);
    expect(html).toContain("<code>/srv/train/eval.py:19</code> validate_batch <span");
    expect(stepSummary(doc)).toContain(
      "**CUDA memory still held, allocated at:**\n\n- /srv/train/eval.py:19 validate_batch: +40.0 MiB in 10 blocks\n",
    );
    const validate = verdictValidator();
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  });
});
