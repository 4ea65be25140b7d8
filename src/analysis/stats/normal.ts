/**
 * The normal distribution: erfc, Φ and Φ⁻¹, for the p-values and confidence intervals of the rank tests.
 */

/** Confidence of Sen's slope interval. 95% is the convention; the trend decision itself uses DEFAULT_ALPHA. */
export const DEFAULT_CONFIDENCE = 0.95;

/** Horner's rule, coefficients from the highest power down. */
function polynomial(coefficients: readonly number[], x: number): number {
  return coefficients.reduce((sum, c) => sum * x + c, 0);
}

/** Numerical Recipes' erfcc: erfc(z) = t·exp(−z² + P(t)) with t = 1 / (1 + z/2), P of degree 9. */
const ERFC_P = [
  0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196, 1.00002368,
  -1.26551223,
];

/**
 * Complementary error function, Chebyshev fit from Numerical Recipes (erfcc): relative error below 1.2e-7 for
 * every x, so normalCdf is within 1e-7 absolute and the tiny p-values of long series keep ~7 significant digits.
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z + polynomial(ERFC_P, t));
  return x >= 0 ? r : 2 - r;
}

/** Φ(z), the standard normal CDF. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

// Acklam's coefficients: central region numerator / denominator, tails numerator / denominator.
const ACKLAM_A = [
  -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
];
const ACKLAM_B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572, 1];
const ACKLAM_C = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
];
const ACKLAM_D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416, 1];
const ACKLAM_TAIL = 0.02425;

/**
 * Φ⁻¹(p), Acklam's rational approximation (relative error below 1.2e-9). Only used to turn a confidence level
 * into a z value, so ±Infinity at p = 0 or 1 and NaN outside [0, 1] are acceptable answers.
 */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const tail = (q: number) => polynomial(ACKLAM_C, q) / polynomial(ACKLAM_D, q);
  if (p < ACKLAM_TAIL) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - ACKLAM_TAIL) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  return (q * polynomial(ACKLAM_A, q * q)) / polynomial(ACKLAM_B, q * q);
}

/** The confidence level actually used: an unusable one (NaN, 0, 1, out of range) falls back to 95%. */
export function confidenceLevel(confidence: number): number {
  return confidence > 0 && confidence < 1 ? confidence : DEFAULT_CONFIDENCE;
}

/** z for a two-sided interval of the given confidence. */
export function twoSidedZ(confidence: number): number {
  return normalQuantile(1 - (1 - confidenceLevel(confidence)) / 2);
}
