/**
 * Ratios and rounding. Each area keeps the rounding its answers have always had, so the variants
 * below differ on purpose (and are named for how): a response must not change by a last digit.
 */

/** Money and counts to cents: `Math.round(x × 100) / 100` (sums of many rows carry float error). */
export const round2 = (x: number): number => Math.round(x * 100) / 100

/** To cents as round2, and never -0 (the stats: a negative change that rounds to nothing reads 0). */
export function round2NoNegativeZero(value: number): number {
  const r = Math.round(value * 100) / 100
  return Object.is(r, -0) ? 0 : r
}

/** Rounded to `digits` decimals, half away from zero (an epsilon nudge so that 1.005 gives 1.01). */
export function roundHalfAway(value: number, digits = 2): number {
  const f = 10 ** digits
  return Math.round((value + Math.sign(value) * Number.EPSILON) * f) / f
}

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000

/** numerator / denominator, 0 when the denominator is 0. */
export const ratio = (numerator: number, denominator: number): number => (denominator === 0 ? 0 : numerator / denominator)

/** numerator / denominator, 0 unless the denominator is positive; not rounded. */
export const positiveRatio = (numerator: number, denominator: number): number => (denominator > 0 ? numerator / denominator : 0)

/** numerator / denominator × scale to 4 decimals, 0 unless the denominator is positive (the contract's rate fields are non-nullable numbers). */
export const rate4 = (numerator: number, denominator: number, scale = 1): number => (denominator > 0 ? round4((numerator / denominator) * scale) : 0)

/** part / whole as a percentage to cents, 0 when the whole is 0. */
export const percent2 = (part: number, whole: number): number => (whole > 0 ? round2((part / whole) * 100) : 0)
