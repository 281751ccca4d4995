/**
 * Sorting of list answers (spec: sort_by / sort_direction on the listing endpoints, "nulls last").
 *
 * Text compares by code point, not `localeCompare`: the latter follows the runtime's default locale
 * (LANG in node, the user's language in a browser), so the same seed would page differently on
 * another machine. Code-point order is the same everywhere, and the order a byte-wise database
 * collation gives.
 */
import { apiError } from '../respond.ts'

export type SortDirection = 'asc' | 'desc' | 'ASC' | 'DESC'
export type SortValue = number | string | boolean | null | undefined

/** Code-point order of two strings. */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Where a value's kind sorts among the others: numbers, then booleans, then text. */
const kindRank = (v: SortValue): number => (typeof v === 'number' ? 0 : typeof v === 'boolean' ? 1 : 2)

/**
 * Numbers and booleans by value, anything else as text; values of different kinds by kind. A total
 * order (antisymmetric, transitive) over values that are not missing: Array.prototype.sort with an
 * inconsistent comparator gives an order that depends on the engine's algorithm and on the input's
 * order, and the same seed must page alike on every Node (and in a browser).
 */
export function compareValues(a: SortValue, b: SortValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b)
  return kindRank(a) - kindRank(b) || compareText(String(a), String(b))
}

/** A sort key with no value: null, undefined or NaN (a ratio of nothing), placed last. */
export const isMissing = (v: SortValue): boolean => v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v))

/** Sorts by one value, nulls last in both directions, ties broken by `tie` ascending so pages are stable. */
export function sortRows<T>(rows: readonly T[], value: (row: T) => SortValue, direction: SortDirection, tie: (row: T) => string): T[] {
  const sign = direction === 'asc' || direction === 'ASC' ? 1 : -1
  const keyed = rows.map((row) => ({ row, key: value(row), id: tie(row) }))
  keyed.sort((a, b) => {
    const aNull = isMissing(a.key)
    const bNull = isMissing(b.key)
    if (aNull !== bNull) return aNull ? 1 : -1
    return (aNull ? 0 : sign * compareValues(a.key, b.key)) || compareText(a.id, b.id)
  })
  return keyed.map((k) => k.row)
}

/** `asc`/`desc` in any case (the lists' case is not shown); `fallback` when absent, 400 naming the field otherwise. */
export function sortDirectionOf(value: unknown, field: string, fallback: 'asc' | 'desc' = 'desc'): 'asc' | 'desc' {
  if (value === undefined || value === null) return fallback
  const lower = String(value).toLowerCase()
  if (lower !== 'asc' && lower !== 'desc') throw apiError(400, `${field} must be asc or desc`)
  return lower
}

/** `ASC` or `DESC` as sent, the fallback for anything else (the ads and social lists, whose schema has the enum). */
export const upperDirectionOf = (value: unknown, fallback: 'ASC' | 'DESC' = 'DESC'): 'ASC' | 'DESC' => (value === 'ASC' || value === 'DESC' ? value : fallback)

/** The sort key of a request among `allowed`, or 400 naming the field and the allowed values. */
export function sortKeyOf<K extends string>(value: unknown, allowed: readonly K[], field: string, fallback: K): K {
  if (value === undefined || value === null) return fallback
  if (!allowed.includes(value as K)) throw apiError(400, `${field} must be one of ${allowed.join(', ')}`)
  return value as K
}

/** The sort key of a request among `allowed`, or the spec's fallback for anything else (no 400). */
export function sortKeyOr<K extends string>(requested: unknown, allowed: readonly K[], fallback: K): K {
  return typeof requested === 'string' && (allowed as readonly string[]).includes(requested) ? (requested as K) : fallback
}
