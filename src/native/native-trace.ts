/**
 * What `run --trace-native` adds to the verdict document: the C/C++ call stacks heaptrack saw allocate memory that was
 * never freed. Types only, at the bottom of the house: the native tracer fills them in, the analysis's document
 * carries them, the reports show them.
 */

/** One frame as heaptrack_print names it: a function (or a bare address), its source line and its library when known. */
export interface NativeFrame {
  function: string;
  file?: string;
  line?: number;
  /** The executable or shared library the frame's code is in. */
  module?: string;
}

/** One call stack whose allocations were never freed, in one traced process. */
export interface NativeLeakStack {
  pid: number;
  /** The traced process's command line, as heaptrack recorded it. */
  command: string;
  /** Bytes allocated from this stack and never freed (heaptrack_print rounds to 3 significant digits). */
  bytes: number;
  /** Calls to the allocator from this stack since the cut, freed or not (heaptrack's "leaked over N calls"). */
  count: number;
  /** The first frame, from the allocator outwards, in code other than the C library and the Python interpreter. */
  site: NativeFrame;
  /** The allocator was called straight from a foreign-function call (ctypes or cffi through libffi). */
  viaFfi?: boolean;
  /** From the allocator's caller through the site's library's own frames, and two callers; the interpreter's are left out. */
  frames: NativeFrame[];
  /** Frames above those shown (the interpreter running Python code, then the program's start). */
  framesLeftOut: number;
}

export interface NativeTrace {
  /** "heaptrack 1.4.0". */
  tool: string;
  /** Processes heaptrack traced (each writes a file of its own). */
  processes: number;
  /** The stacks claimed as leaking, most bytes first. */
  stacks: NativeLeakStack[];
  /** Everything heaptrack saw never freed, claimed or not. */
  neverFreedBytes: number;
  /** Of that, what the C library and the interpreter keep until exit (arenas, interned objects, locale data): not claimed. */
  runtimeBytes: number;
  /** Traced files that could not be read, one line each. */
  problems: string[];
}
