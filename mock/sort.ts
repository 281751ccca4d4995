/** Sorting of list answers (spec: sort_by / sort_direction on the listing endpoints). */

export type SortDirection = 'asc' | 'desc'
export type SortValue = number | string | null | undefined

/** Sorts by one value, nulls last in both directions, ties broken by `tie` ascending so pages are stable. */
export function sortRows<T>(rows: readonly T[], value: (row: T) => SortValue, direction: SortDirection, tie: (row: T) => string): T[] {
  const sign = direction === 'asc' ? 1 : -1
  const keyed = rows.map((row) => ({ row, key: value(row), id: tie(row) }))
  keyed.sort((a, b) => {
    const aNull = a.key === null || a.key === undefined
    const bNull = b.key === null || b.key === undefined
    if (aNull !== bNull) return aNull ? 1 : -1
    let c = 0
    if (!aNull) c = typeof a.key === 'number' && typeof b.key === 'number' ? a.key - b.key : String(a.key).localeCompare(String(b.key))
    return sign * c || a.id.localeCompare(b.id)
  })
  return keyed.map((k) => k.row)
}
