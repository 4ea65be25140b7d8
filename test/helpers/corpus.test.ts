/**
 * The labelled corpus (corpus.ts): labels read from a script's header and from the manifest, each wrong label refused
 * with its file and what is wrong, and the corpus in the repository loading whole.
 */
import { describe, expect, it } from "vitest";
import { appliesIn, LabelError, loadCorpus, manifestEntry, parseLabels, programArgv } from "./corpus.js";

describe("parseLabels: a script's header", () => {
  it("reads every label, up to the first line that is not a comment", () => {
    const text = [
      "#!/usr/bin/python3",
      "# expect: leak",
      "# subject: worker",
      "# layer: Python objects",
      "# holder: __main__.SEEN",
      "# modes: run",
      "# seconds: 40",
      '"""doc"""',
      "# expect: stable",
    ].join("\n");
    expect(parseLabels(text, "x.py", 24)).toEqual({
      args: ["{seconds}"],
      python: ["/usr/bin/python3"],
      seconds: 40,
      expect: "leak",
      subject: "worker",
      layer: "Python objects",
      holder: "__main__.SEEN",
      modes: ["run"],
    });
  });

  it("defaults: python3 from PATH, both modes, the directory's length; #!/usr/bin/env python3 is python3", () => {
    expect(parseLabels("#!/usr/bin/env python3\n# expect: stable\n", "x.py", 24)).toEqual({
      args: ["{seconds}"],
      python: ["python3"],
      seconds: 24,
      expect: "stable",
      modes: ["run", "watch"],
    });
  });

  it.each([
    ["no expect line", "# subject: root\n", /x\.py: no "# expect: KIND" line/],
    ["an unknown kind", "# expect: leaky\n", /x\.py: "leaky" is not a verdict kind/],
    ["an unknown subject", "# expect: leak\n# subject: child\n", /subject "child"/],
    ["an unknown mode", "# expect: leak\n# modes: run,attach\n", /mode "attach"/],
    ["a length that is no number", "# expect: leak\n# seconds: soon\n", /seconds "soon"/],
  ])("refused: %s", (_, text, message) => {
    expect(() => parseLabels(text, "x.py", 24)).toThrow(LabelError);
    expect(() => parseLabels(text, "x.py", 24)).toThrow(message);
  });
});

describe("appliesIn: which modes a program is run in", () => {
  it.each([
    [
      ["run", "watch"],
      ["run", "watch", "container"],
    ],
    [["run"], ["run"]],
    [["watch"], ["watch", "container"]],
    [["container"], ["container"]],
  ] as const)("labelled %j → %j (a container's watch is a watch)", (modes, applies) => {
    expect((["run", "watch", "container"] as const).filter((m) => appliesIn({ modes: [...modes] }, m))).toEqual(
      applies,
    );
  });
  it("a label may name the container mode", () => {
    expect(parseLabels("# expect: leak\n# modes: container\n", "x.py", 24).modes).toEqual(["container"]);
  });
});

describe("manifestEntry and programArgv", () => {
  it("an entry with arguments: the run length goes where {seconds} is", () => {
    const e = manifestEntry(
      { name: "kept-tasks", file: "k.py", args: ["tasks", "{seconds}"], seconds: 16, expect: "leak", ready: "^ready$" },
      "m.json",
    );
    expect(e).toMatchObject({ python: ["python3"], modes: ["run", "watch"], ready: "^ready$" });
    expect(programArgv(e)).toEqual(["python3", "k.py", "tasks", "16"]);
    expect(programArgv(e, 18)).toEqual(["python3", "k.py", "tasks", "18"]);
  });

  it.each([
    ["no file", { name: "a", seconds: 1, expect: "leak" }, /needs "name" and "file"/],
    ["no length", { name: "a", file: "a.py", expect: "leak" }, /m\.json a: "seconds"/],
    ["no kind", { name: "a", file: "a.py", seconds: 3 }, /m\.json a: "" is not a verdict kind/],
  ])("refused: %s", (_, entry, message) => {
    expect(() => manifestEntry(entry, "m.json")).toThrow(message);
  });
});

describe("the corpus in the repository", () => {
  const corpus = loadCorpus(process.cwd());

  it("loads whole: the scenarios, the calibration set and the manifest, names unique", () => {
    const names = corpus.map((e) => e.name);
    expect(names).toContain("leak_main");
    expect(names).toContain("slow_leak");
    expect(names).toContain("kept-losses-fixed");
    expect(new Set(names).size).toBe(names.length);
  });

  it("the programs of issue 45 with their holders, and their fixed forms as stable", () => {
    expect(corpus.find((e) => e.name === "kept-tasks")).toMatchObject({
      expect: "leak",
      holder: "__main__.background_tasks",
    });
    expect(corpus.find((e) => e.name === "kept-tasks-fixed")).toMatchObject({ expect: "stable" });
  });

  it("a cgroup artefact is judged under run only: a watch's cgroup is whatever the process lives in", () => {
    for (const e of corpus.filter((x) => x.expect === "cgroup-artefact")) expect(e.modes, e.name).toEqual(["run"]);
  });
});
