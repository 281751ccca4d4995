/** Narrowing for untyped JSON (admin bodies, normalizers before validation): `unknown` in, checked types out. */

/** A JSON object (not an array, not null). */
export const isPlainObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value)

/** `value` when it is one of `allowed` (a string union's values). */
export const isOneOf = <T extends string>(allowed: readonly T[], value: unknown): value is T => typeof value === 'string' && (allowed as readonly string[]).includes(value)
