/**
 * The one declaration of the agent's fields (src/agent/report-fields.ts) against the agent itself (issue 50 item 2).
 * TypeScript cannot read a field nobody declared (the series are typed by the declaration); these tests hold the
 * Python side to it: its syntax tree says which keys each writing function puts in a report, and each must be declared
 * with that writer, each declared field written by its writer; and a real agent's reports carry no other field.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_CODE_FILES } from "../../../src/agent/attach/precompile.js";
import { AGENT_FIELDS, fieldPath, type FieldDeclaration } from "../../../src/agent/report-fields.js";
import { GPU_FIELDS } from "../../../src/sampling/gpu-fields.js";
import { REPO } from "../../helpers/fixtures.js";
import { startAgentProgram, stopAgentPrograms } from "../../helpers/agent-program.js";

afterEach(stopAgentPrograms);

const AGENT_DIR = join(REPO, "src/agent/python");
/** The agent's files: its entry and the rooms it loads with it (memleak_agent.py _ROOMS), whose functions write reports. */
const AGENT = AGENT_CODE_FILES.map((file) => join(AGENT_DIR, file));
const READINGS = join(AGENT_DIR, "memleak_readings.py");

/**
 * Per function of the agent's files, the string keys it writes: keys of its dict literals, keys assigned by subscript to a
 * variable of its own (`out["x"] = …`; a module's state dict, `_census[…]`, is not a report), and keyword arguments
 * of its dict(…) and own .update(…) calls. And the _CUDA_STATS pairs. A function's name names one function of them all.
 */
const KEYS_SCRIPT = `
import ast, json, sys
trees = [ast.parse(open(path).read()) for path in sys.argv[1:]]
def own(node):
    return isinstance(node, ast.Name) and not node.id.startswith("_")
def keys(fn):
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Dict):
            out.update(k.value for k in n.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and own(n.value):
            if isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
                out.add(n.slice.value)
        elif isinstance(n, ast.Call):
            f = n.func
            if (isinstance(f, ast.Name) and f.id == "dict") or (
                isinstance(f, ast.Attribute) and f.attr == "update" and own(f.value)
            ):
                out.update(k.arg for k in n.keywords if k.arg)
    return sorted(out)
functions = {}
for tree in trees:
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef):
            functions.setdefault(n.name, []).append(keys(n))
# A writer's name must say which function it is: one defined in two files is listed with the keys of each.
functions = {name: found[0] if len(found) == 1 else ["(defined %d times)" % len(found)] for name, found in functions.items()}
cuda = next(ast.literal_eval(n.value) for tree in trees for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "_CUDA_STATS")
print(json.dumps({"functions": functions, "cuda": cuda}))
`;

interface AgentKeys {
  functions: Record<string, string[]>;
  cuda: [string, string][];
}

const keysOf = (files: string[]) =>
  JSON.parse(execFileSync("python3", ["-c", KEYS_SCRIPT, ...files], { encoding: "utf8" })) as AgentKeys;

/** The report's own frame in _report_locked: what it is and whose, and the groups it nests. */
const FRAME = new Set(["type", "pid", "py", "malloc", "torch", "gpu", "census"]);

const declared = Object.entries(AGENT_FIELDS) as [keyof typeof AGENT_FIELDS, FieldDeclaration][];
const writersOf = (d: FieldDeclaration) => (d.writer === "trim message" ? [] : d.writer.split(","));
const writers = [...new Set(declared.flatMap(([, d]) => writersOf(d)))];

/** Where the agent and the declaration differ: keys a writer writes undeclared, declared fields it does not write. */
function differences(read: AgentKeys): { undeclared: string[]; unwritten: string[] } {
  const undeclared: string[] = [];
  const unwritten: string[] = [];
  for (const writer of writers) {
    const written = read.functions[writer];
    if (written === undefined) {
      unwritten.push(`${writer}: no such function`);
      continue;
    }
    const own = declared.filter(([, d]) => writersOf(d).includes(writer)).map(([name]) => fieldPath(name)[1]);
    for (const k of written)
      if (!own.includes(k) && !(writer === "_report_locked" && FRAME.has(k))) undeclared.push(`${writer}: ${k}`);
  }
  for (const [name, d] of declared)
    for (const writer of writersOf(d))
      if (!read.functions[writer]?.includes(fieldPath(name)[1])) unwritten.push(`${name} (${writer})`);
  return { undeclared, unwritten };
}

describe("the agent's fields: one declaration, both sides", () => {
  it("each function that writes a report's fields writes the fields declared as its own, no more, no fewer", () => {
    expect(differences(keysOf(AGENT))).toEqual({ undeclared: [], unwritten: [] });
  });

  it("the GPU's fields per device are the agent's, key for key (sampling/gpu-fields.ts)", () => {
    expect(Object.fromEntries(keysOf(AGENT).cuda.map(([key, name]) => [name, key]))).toEqual(GPU_FIELDS);
  });

  it("the check fails where it should: the agent with one field renamed and one more written", () => {
    const dir = mkdtempSync(join(tmpdir(), "memleak-fields-"));
    try {
      const changed = readFileSync(READINGS, "utf8")
        .replace('"allocatedBlocks": sys.getallocatedblocks()', '"allocatedBlock": sys.getallocatedblocks()')
        .replace('stats["modules"] = len(sys.modules)', 'stats["modules"] = len(sys.modules)\n    stats["extra"] = 1');
      writeFileSync(join(dir, "readings.py"), changed);
      expect(differences(keysOf(AGENT.map((file) => (file === READINGS ? join(dir, "readings.py") : file))))).toEqual({
        undeclared: ["_python_stats: allocatedBlock", "_python_stats: extra"],
        unwritten: ["py.allocatedBlocks (_python_stats)"],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a real agent's reports carry declared fields only", { timeout: 40_000 }, () => {
  const declaredNames = new Set<string>(declared.map(([name]) => name));
  const gpu = new RegExp(`^gpu\\.cuda\\d+(${Object.keys(GPU_FIELDS).join("|")})$`);

  /** Every field name of the reports seen over `ms`, flattened as the series flatten them. */
  async function fieldsSent(program: string, python: string, ms: number): Promise<string[]> {
    const { ch, parent } = await startAgentProgram(program, { interval: 0.25, python });
    const names = new Set<string>();
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const data = ch.latest.get(parent.pid!)?.data as Record<string, unknown> | undefined;
      for (const [k, v] of Object.entries(data ?? {})) {
        if (v !== null && typeof v === "object") for (const f of Object.keys(v)) names.add(`${k}.${f}`);
        else names.add(k);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return [...names].sort();
  }

  // A list that keeps growing: the census follows it (growing, its length, its items' size) from the second walk.
  const GROWING = `
import os, time
print(os.getpid(), flush=True)
kept = []
while True:
    kept.extend(bytes(4000) for _ in range(200))
    time.sleep(0.25)
`;

  it("a growing program under pyenv's Python: the census's growing container, malloc and the interpreter", async () => {
    const names = await fieldsSent(GROWING, "python3", 12_000);
    expect(names).toEqual(expect.arrayContaining(["py.allocatedBlocks", "malloc.inUse", "census.growingAdded"]));
    expect(names.filter((n) => !declaredNames.has(n) && !gpu.test(n))).toEqual([]);
  });

  // Debian's Python with PyTorch: a loop keeping its losses (tensors with graphs) adds torch's and the tensors' fields.
  const TORCH = `
import os, time, torch
print(os.getpid(), flush=True)
w = torch.randn(64, 64, requires_grad=True)
losses = []
while True:
    losses.append((w @ torch.randn(64, 64)).sum())
    time.sleep(0.05)
`;

  it.runIf(existsSync("/usr/bin/python3") && hasTorch())(
    "a PyTorch loop keeping its losses: torch's fields and the tensor census",
    async () => {
      const names = await fieldsSent(TORCH, "/usr/bin/python3", 14_000);
      expect(names).toEqual(expect.arrayContaining(["torch.version", "census.graphTensors", "census.cpuTensors"]));
      expect(names.filter((n) => !declaredNames.has(n) && !gpu.test(n))).toEqual([]);
    },
  );
});

function hasTorch(): boolean {
  try {
    execFileSync("/usr/bin/python3", ["-c", "import torch"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
