/**
 * Working space the statistics reuse instead of allocating it per call. A verdict on 64 processes ran Theil–Sen
 * about 200 times, each on a fresh Float64Array of up to 28,680 slopes (240 points), and every median copied its
 * input into another: ~20 MB of typed arrays per verdict, each an ArrayBuffer the collector has to find and free,
 * which kept V8's helper threads busy after every interim verdict (bench g). A scratch grows to the largest length
 * asked of it and stays; what it hands out is a view whose contents are whatever the last user left, so a user
 * writes every element it reads, and is done with it before it calls anything that uses the same scratch.
 */
export function float64Scratch(): (length: number) => Float64Array {
  let buffer = new Float64Array(64);
  return (length) => {
    if (buffer.length < length) buffer = new Float64Array(Math.max(length, buffer.length * 2));
    return buffer.subarray(0, length);
  };
}

export function int32Scratch(): (length: number) => Int32Array {
  let buffer = new Int32Array(64);
  return (length) => {
    if (buffer.length < length) buffer = new Int32Array(Math.max(length, buffer.length * 2));
    return buffer.subarray(0, length);
  };
}
