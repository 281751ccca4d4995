/**
 * Sorting of list answers (spec: sort_by / sort_direction on the listing endpoints, "nulls last").
 *
 * Text compares by code point, not `localeCompare`: the latter follows the runtime's default locale
 * (LANG in node, the user's language in a browser), so the same seed would page differently on
 * another machine. Code-point order is the same everywhere, and the order a byte-wise database
 * collation gives.
 */

export type SortDirection = 'asc' | 'desc' | 'ASC' | 'DESC'
export type SortValue = number | string | boolean | null | undefined

/** Code-point order of two strings. */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Numbers and booleans by value, anything else as text. */
export function compareValues(a: SortValue, b: SortValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b)
  return compareText(String(a), String(b))
}

/** Sorts by one value, nulls last in both directions, ties broken by `tie` ascending so pages are stable. */
export function sortRows<T>(rows: readonly T[], value: (row: T) => SortValue, direction: SortDirection, tie: (row: T) => string): T[] {
  const sign = direction === 'asc' || direction === 'ASC' ? 1 : -1
  const keyed = rows.map((row) => ({ row, key: value(row), id: tie(row) }))
  keyed.sort((a, b) => {
    const aNull = a.key === null || a.key === undefined
    const bNull = b.key === null || b.key === undefined
    if (aNull !== bNull) return aNull ? 1 : -1
    return (aNull ? 0 : sign * compareValues(a.key, b.key)) || compareText(a.id, b.id)
  })
  return keyed.map((k) => k.row)
}
