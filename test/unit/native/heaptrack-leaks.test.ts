/**
 * heaptrack_print's leak list (fixtures/heaptrack/, captured on the development machine with heaptrack 1.4.0; see
 * fixtures/README.md) read into stacks, and which of them are claimed as leaks.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { heaptrackBytes, parseHeaptrackLeaks } from "../../../src/native/heaptrack-leaks.js";
import { claimLeaks, groupBySite, isRuntimeFrame, siteIndex } from "../../../src/native/leak-sites.js";
import { FIXTURES } from "../../helpers/fixtures.js";

const capture = (name: string) => parseHeaptrackLeaks(readFileSync(`${FIXTURES}heaptrack/leaks.${name}.txt`, "utf8"));

describe("parseHeaptrackLeaks", () => {
  it("reads a C extension's leak: size, calls, frames with their files, lines and libraries", () => {
    const r = capture("c-extension");
    expect(r.command).toBe("/root/.pyenv/versions/3.11.7/bin/python3 cleak.py");
    expect(r.blocks).toHaveLength(24);
    expect(r.totalLeaked).toBe(20_070_000);
    const top = r.blocks[0]!;
    expect(top.bytes).toBe(19_200_000);
    expect(top.count).toBe(293);
    expect(top.frames[0]).toEqual({
      function: "leaky_fn",
      file: "/tmp/ht34/leaky.c",
      line: 6,
      module: "/tmp/ht34/leaky.cpython-311-x86_64-linux-gnu.so",
    });
    expect(top.frames[1]).toEqual({
      function: "_PyEval_EvalFrameDefault",
      file: "Python/ceval.c",
      line: 5020,
      module: "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0",
    });
    // _PyEval_Vector is inlined (no "in" line of its own): it is in the library named last.
    expect(top.frames[3]).toEqual({
      function: "_PyEval_Vector",
      file: "Python/ceval.c",
      line: 6434,
      module: "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0",
    });
    expect(top.frames[top.frames.length - 1]).toEqual({
      function: "_start",
      module: "/root/.pyenv/versions/3.11.7/bin/python3.11",
    });
  });

  it("reads unnamed frames (bare addresses) as functions of their library", () => {
    const top = capture("ctypes-malloc").blocks[0]!;
    expect(top).toMatchObject({ bytes: 20_000_000, count: 200 });
    expect(top.frames[0]).toEqual({ function: "0x7ff614449f79", module: "/lib/x86_64-linux-gnu/libffi.so.8" });
    expect(top.frames[2]).toEqual({ function: "ffi_call", module: "/lib/x86_64-linux-gnu/libffi.so.8" });
  });

  it("reads heaptrack's decimal units", () => {
    expect(heaptrackBytes("262.14", "K")).toBe(262_140);
    expect(heaptrackBytes("792", "B")).toBe(792);
    expect(heaptrackBytes("1.50", "G")).toBe(1_500_000_000);
  });

  it("ignores text that is not a leak list, and a list cut short", () => {
    expect(parseHeaptrackLeaks('reading file "x" - please wait\nfinished reading file\n').blocks).toEqual([]);
    const cut = readFileSync(`${FIXTURES}heaptrack/leaks.c-extension.txt`, "utf8").slice(0, 400);
    const r = parseHeaptrackLeaks(cut);
    expect(r.blocks).toHaveLength(1);
    expect(r.blocks[0]!.frames[0]!.function).toBe("leaky_fn");
  });
});

describe("which stacks are claimed", () => {
  it("puts the C library, libpython, the python executable and lib-dynload in the runtime, an extension outside it", () => {
    expect(isRuntimeFrame({ function: "x", module: "/lib/x86_64-linux-gnu/libc.so.6" })).toBe(true);
    expect(isRuntimeFrame({ function: "x", module: "/usr/bin/python3.11" })).toBe(true);
    expect(isRuntimeFrame({ function: "x", module: "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0" })).toBe(
      true,
    );
    expect(
      isRuntimeFrame({
        function: "x",
        module: "/usr/lib/python3.11/lib-dynload/_json.cpython-311-x86_64-linux-gnu.so",
      }),
    ).toBe(true);
    expect(isRuntimeFrame({ function: "x", module: "/lib/x86_64-linux-gnu/libstdc++.so.6" })).toBe(true);
    expect(isRuntimeFrame({ function: "x", module: "/lib/x86_64-linux-gnu/libtorch_python.so.1.13" })).toBe(false);
    expect(isRuntimeFrame({ function: "x", module: "/lib/x86_64-linux-gnu/libffi.so.8" })).toBe(false);
    expect(isRuntimeFrame({ function: "0x1234" })).toBe(true);
  });

  it("a plain Python program's never-freed memory is all the runtime's: no site, nothing claimed", () => {
    const r = capture("no-leak");
    expect(r.blocks.length).toBeGreaterThan(10);
    expect(r.blocks.every((b) => siteIndex(b.frames) < 0)).toBe(true);
    expect(groupBySite(r.blocks).runtimeBytes).toBe(r.blocks.reduce((s, b) => s + b.bytes, 0));
    expect(claimLeaks({ pid: 1, command: "python3 noleak.py", atExit: r.blocks, atCut: [] })).toEqual([]);
  });

  it("claims the C extension's leaky_fn, with the interpreter frames above it left out", () => {
    const r = capture("c-extension");
    const [top, ...rest] = claimLeaks({ pid: 7, command: r.command!, atExit: r.blocks, atCut: [] });
    expect(rest).toEqual([]);
    // Two blocks of the capture (293 calls, and 7 from the loop's first, unspecialised bytecode): one site, 300 calls.
    expect(top).toMatchObject({ pid: 7, bytes: 19_658_750, count: 300, site: { function: "leaky_fn", line: 6 } });
    expect(top!.viaFfi).toBeUndefined();
    expect(top!.frames.map((f) => f.function)).toEqual(["leaky_fn", "_PyEval_EvalFrameDefault", "_PyEval_EvalFrame"]);
    expect(top!.framesLeftOut).toBe(r.blocks[0]!.frames.length - 3);
  });

  it("names a C++ library's leaks at its own code, past libstdc++, and shows its frames up to the function called in", () => {
    const r = capture("cpp-library");
    const claimed = claimLeaks({ pid: 7, command: r.command!, atExit: r.blocks, atCut: [] });
    // leak_cpp's `new std::vector<std::string>(4, std::string(n, 'x'))`, 300 times: the strings' buffers, the vector's
    // array and the vector itself, each a stack of its own.
    expect(claimed.map((c) => [c.bytes, c.count, c.site.function])).toEqual([
      [4_800_000, 1200, "void std::_Construct<>(std::__cxx11::basic_string<>*, std::__cxx11::basic_string<> const&)"],
      [38_400, 300, "std::__new_allocator<>::allocate(unsigned long, void const*)"],
      [7_200, 300, "leak_cpp"],
    ]);
    for (const c of claimed) {
      expect(c.site.module).toBe("/tmp/ht34/libleakpp.so");
      expect(c.viaFfi).toBeUndefined();
      const names = c.frames.map((f) => f.function);
      expect(names.slice(names.indexOf("leak_cpp") + 1)).toHaveLength(2); // then two callers (libffi)
    }
    // libstdc++'s frame is the allocator's caller, shown, but not the site.
    expect(claimed[0]!.frames[0]!.function).toMatch(/basic_string<>::_M_construct/);
  });

  it("claims a ctypes malloc as called through libffi", () => {
    const r = capture("ctypes-malloc");
    const [top, ...rest] = claimLeaks({ pid: 7, command: r.command!, atExit: r.blocks, atCut: [] });
    expect(rest).toEqual([]);
    expect(top).toMatchObject({ bytes: 20_000_000, count: 200, viaFfi: true });
  });

  it("counts only what grew after the cut: torch's import-time allocations held at the cut are not claimed", () => {
    const r = capture("torch-import");
    // Without a cut every extension's import-time block has a site (libtorch_python, numpy's mtrand): all would be claimed.
    expect(claimLeaks({ pid: 1, command: "", atExit: r.blocks, atCut: [] }).length).toBeGreaterThan(5);
    // The same blocks held at the cut: nothing grew after it.
    expect(claimLeaks({ pid: 1, command: "", atExit: r.blocks, atCut: r.blocks })).toEqual([]);
  });

  it("subtracts what a stack held at the cut, and needs two allocations of growth", () => {
    const r = capture("c-extension");
    const top = r.blocks[0]!;
    const atCut = [{ ...top, bytes: 6_553_600, count: 100 }];
    expect(claimLeaks({ pid: 1, command: "", atExit: r.blocks, atCut })[0]).toMatchObject({
      bytes: 19_658_750 - 6_553_600,
      count: 200,
    });
    const oneLess = r.blocks.map((b) => (b === top ? { ...top, count: 292, bytes: 19_134_464 } : b));
    expect(claimLeaks({ pid: 1, command: "", atExit: r.blocks, atCut: oneLess })).toEqual([]);
  });

  it("needs the stack's never-freed bytes to have grown again after each late cut: an import that outlasted the warm-up is not a leak", () => {
    const r = capture("c-extension");
    const top = r.blocks[0]!;
    const at = (calls: number) =>
      r.blocks.map((b) => (b === top ? { ...top, count: calls, bytes: calls * 65_536 } : b));
    // 19.2 MB at exit: growing through both late stretches.
    expect(claimLeaks({ pid: 1, command: "", atExit: r.blocks, atCut: [], atLate: [at(200), at(250)] })).toHaveLength(
      1,
    );
    // Done growing by the first late cut (all of this block held there already): not claimed.
    expect(claimLeaks({ pid: 1, command: "", atExit: r.blocks, atCut: [], atLate: [r.blocks, r.blocks] })).toEqual([]);
    // Grew up to nine tenths of the life, then stopped: not claimed either.
    expect(claimLeaks({ pid: 1, command: "", atExit: r.blocks, atCut: [], atLate: [at(200), r.blocks] })).toEqual([]);
  });

  it("does not claim a loop that allocates a buffer and drops it: many calls, the same bytes held at every cut", () => {
    // torch's c10::alloc_cpu under `while …: x = torch.randn(200, 200)`: one 160 KB tensor held, 1,242 calls.
    const site = { function: "c10::alloc_cpu(unsigned long)", module: "/lib/x86_64-linux-gnu/libc10.so.1.13" };
    const at = (count: number) => [{ bytes: 160_000, count, frames: [site] }];
    // The warm-up cut fell inside the long import, before the loop's first tensor: only the late cuts can tell.
    expect(claimLeaks({ pid: 1, command: "", atExit: at(1242), atCut: [], atLate: [at(900), at(1100)] })).toEqual([]);
  });

  it("leaves torch's import alone when the import ended before the late cuts", () => {
    const r = capture("torch-import");
    expect(claimLeaks({ pid: 1, command: "", atExit: r.blocks, atCut: [], atLate: [r.blocks, r.blocks] })).toEqual([]);
  });

  it("groups stacks that differ only above the site (called from different Python lines)", () => {
    const top = capture("c-extension").blocks[0]!;
    const other = {
      bytes: 1000,
      count: 4,
      frames: [top.frames[0]!, { function: "somewhere_else", module: "/usr/bin/python3.11" }],
    };
    const [g] = claimLeaks({ pid: 1, command: "", atExit: [top, other], atCut: [] });
    expect(g).toMatchObject({ bytes: top.bytes + 1000, count: top.count + 4 });
  });
});
