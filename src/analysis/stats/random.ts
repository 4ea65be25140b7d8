/**
 * A small seeded PRNG, so sampled statistics and synthetic series are reproducible.
 */

/**
 * mulberry32: a 32-bit PRNG, a few lines and fast; ample for drawing pairs and synthetic noise (nothing here is
 * cryptographic). Same seed, same sequence, on every platform, which is what makes results reproducible.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
