/**
 * The identifiers a shop's records carry in the world (product ids, apply ids, video ids, board
 * ids...), by field name: fuzzing aims requests at real rows with them, and the isolation tests
 * look for another shop's ids in a shop's answers.
 */
import type { ShopData } from '../../fixtures/types.ts'

/** Collections that are not records of the shop (computed facts, the calendar, the event log). */
const NOT_RECORDS = new Set(['shop', 'calendar', 'facts', 'events'])
const ID_FIELD = /(^|_)id$|^(slug|short_id|spark_code|handle)$/

/** Field name → the ids of that field in the shop's records (`id` of a board counts as `dashboard_id`). */
export function shopIds(data: ShopData, { skip = () => false }: { skip?: (collection: string, record: Record<string, unknown>) => boolean } = {}): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  const add = (field: string, value: unknown) => {
    if (typeof value !== 'string' || value.length < 6) return
    let set = out.get(field)
    if (!set) out.set(field, (set = new Set()))
    set.add(value)
  }
  const walk = (collection: string, value: unknown, parentField: string, depth: number) => {
    if (depth > 4 || value === null || typeof value !== 'object') return
    if (Array.isArray(value)) {
      for (const item of value) {
        if (typeof item === 'string' && parentField.endsWith('_ids')) add(parentField.slice(0, -1), item)
        else walk(collection, item, parentField, depth + 1)
      }
      return
    }
    const record = value as Record<string, unknown>
    if (depth <= 2 && skip(collection, record)) return
    for (const [field, v] of Object.entries(record)) {
      if (field === 'id') add(parentField === 'widgets' ? 'widget_id' : collection === 'dashboards' ? 'dashboard_id' : `${collection}_id`, v)
      else if (ID_FIELD.test(field)) add(field, v)
      walk(collection, v, field, depth + 1)
    }
  }
  for (const [collection, records] of Object.entries(data)) if (!NOT_RECORDS.has(collection)) walk(collection, records, collection, 0)
  return out
}

/** Every id of the shop's records, whatever the field. */
export function allIds(ids: Map<string, Set<string>>): Set<string> {
  const out = new Set<string>()
  for (const set of ids.values()) for (const id of set) out.add(id)
  return out
}
