/**
 * The control API's read-only views for traces and the console (part of `createAdminHandlers`, so
 * they also answer in-process): the traces, the rate counters and idempotency records, each area's
 * state, the connector's connections and activity. Reading changes nothing, so unlike the other
 * control-API calls these do not move the state's version (the response cache stays warm while the
 * console watches).
 */
import type { HttpHandler } from 'msw'
import { http } from '../lib/msw.ts'
import { keyIdOf } from '../connector/activity.ts'
import { apiError, toResponse } from '../respond.ts'
import type { MockState } from '../state.ts'
import type { TraceFilter } from '../trace/store.ts'

/** Most entries of a collection shown per level, and the depth shown, of an area's state. */
const MAX_ITEMS = 50
const MAX_DEPTH = 6

/** A JSON view of an area state: maps as objects, sets as arrays, long collections cut (with a count). */
export function plainView(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? String(value) : typeof value === 'function' ? undefined : value
  if (value instanceof Date) return value.toISOString()
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? `[${value.length} items]` : '{...}'
  const cut = <T>(items: T[], each: (item: T) => void): number => {
    items.slice(0, MAX_ITEMS).forEach(each)
    return Math.max(0, items.length - MAX_ITEMS)
  }
  if (Array.isArray(value) || value instanceof Set) {
    const items = [...value]
    const out: unknown[] = []
    const more = cut(items, (v) => out.push(plainView(v, depth + 1)))
    if (more) out.push(`... ${more} more`)
    return out
  }
  const entries = value instanceof Map ? [...value].map(([k, v]) => [String(k), v] as const) : Object.entries(value)
  const out: Record<string, unknown> = {}
  const more = cut(entries, ([k, v]) => (out[k] = plainView(v, depth + 1)))
  if (more) out['...'] = `${more} more`
  return out
}

const ok = (body: unknown) => toResponse({ status: 200, body, headers: { 'cache-control': 'no-store' } })

/** The limits view: rate counters per (key, shop), idempotency records per (shop, key); keys redacted. */
export function limitsView(state: MockState) {
  const rate = state.rateLimiter.list?.().map(({ apiKey, shopId, ...counts }) => ({ key: apiKey.startsWith('connector:') ? apiKey.slice('connector:'.length) : keyIdOf(apiKey), shop: shopId, ...counts, windowStart: new Date(counts.windowStart).toISOString(), perSecond: state.rateLimiter.perSecond, perDay: state.rateLimiter.perDay }))
  const idempotency = state.idempotency.list?.().map(({ shopId, key, entry }) => ({
    shop: shopId,
    key,
    status: entry.status,
    startedAt: new Date(entry.startedAt).toISOString(),
    responseStatus: entry.responseStatus ?? null,
    expiresAt: entry.expiresAt ? new Date(entry.expiresAt).toISOString() : null,
    operation: entry.permission ?? null,
    trace: entry.trace ?? null,
  }))
  return { rateLimit: state.rateLimit, rate: rate ?? null, idempotency: idempotency ?? null }
}

/** The routes below but the traces' (mock/admin.ts lists those with its own), for the control API's listing and Allow lists. */
export const CONSOLE_ROUTES: ReadonlyArray<readonly [path: string, method: string]> = [
  ['/__admin/faults/{id}', 'DELETE'],
  ['/__admin/console/limits', 'GET'],
  ['/__admin/console/areas', 'GET'],
  ['/__admin/console/connector', 'GET'],
]

export function createConsoleHandlers(state: MockState, { baseUrl = '' }: { baseUrl?: string } = {}): HttpHandler[] {
  const at = (p: string) => `${baseUrl.replace(/\/$/, '')}/__admin${p}`
  return [
    http.get(at('/traces'), async ({ request }) => {
      const q = new URL(request.url).searchParams
      const filter: TraceFilter = {}
      for (const name of ['shop', 'key', 'status', 'operation', 'after'] as const) {
        const value = q.get(name)
        if (value) filter[name] = value
      }
      const limit = q.get('limit')
      if (limit !== null) {
        if (!/^\d+$/.test(limit)) return toResponse(apiError(400, 'limit must be a non-negative integer'))
        filter.limit = Number(limit)
      }
      // A shared twin's traces are every replica's (mock/twin/redis/traces.ts).
      return ok({ enabled: state.traces.enabled, capacity: state.traces.capacity, traces: await (state.twin.traces ?? state.traces).list(filter) })
    }),
    http.get(at('/traces/:id'), async ({ params }) => {
      const trace = await (state.twin.traces ?? state.traces).get(String(params.id))
      return trace ? ok(trace) : toResponse(apiError(404, `No trace ${String(params.id)} (the last ${state.traces.capacity} are kept${state.traces.enabled ? '' : '; tracing is off'})`))
    }),
    http.get(at('/console/limits'), () => ok(limitsView(state))),
    // One fault removed (DELETE /__admin/faults removes them all): a change, so the version moves.
    http.delete(at('/faults/:id'), ({ params }) => {
      const id = Number(params.id)
      if (!Number.isInteger(id) || !state.faults.remove?.(id)) return toResponse(apiError(404, `No fault ${String(params.id)}`))
      state.changed()
      return ok({ faults: state.faults.list() })
    }),
    http.get(at('/console/areas'), () => ok({ areas: state.areaStates().map(({ area, state: value }) => ({ area, state: plainView(value) })) })),
    http.get(at('/console/connector'), () => {
      const data = state.connector.data
      return ok({
        connections: Object.values(data.connections).map((c) => plainView(c)),
        activity: data.activity.slice(-200).reverse(),
      })
    }),
  ]
}
