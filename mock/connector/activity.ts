/**
 * The account's activity log: who did what on which shop, through which door, and how it ended
 * (spec: What the service does). Read through the control API and `GET /account/activity` (inferred).
 */
import { hashString } from '../../fixtures/random.ts'
import { defineHandler } from '../context.ts'
import { apiError } from '../respond.ts'
import type { ApiKeyRecord } from '../world.ts'
import type { ActivityActor, ActivityEntry } from './store.ts'

/** The connection behind a connector call (RequestContext.connector). */
export interface ConnectorActor {
  connection_id: string
  client_id: string
  client_name: string
}

const keyIds = new Map<string, string>()

/** A stable, non-secret id for an API key (the log never holds the key). */
export function keyIdOf(key: string): string {
  let id = keyIds.get(key)
  if (id === undefined) keyIds.set(key, (id = `key_${hashString(`shoptwin-key/${key}`).toString(16).padStart(8, '0')}`))
  return id
}

const keyActors = new WeakMap<ApiKeyRecord, ActivityActor>()

/** The actor of a request; a key's is made once and shared by its entries (they are never changed). */
export function actorOf(apiKey: ApiKeyRecord, connector: ConnectorActor | undefined): ActivityActor {
  if (connector) return { kind: 'connector', client_id: connector.client_id, client_name: connector.client_name, connection_id: connector.connection_id }
  let actor = keyActors.get(apiKey)
  if (!actor) keyActors.set(apiKey, (actor = { kind: 'api_key', key_id: keyIdOf(apiKey.key), label: apiKey.label }))
  return actor
}

export interface ActivityQuery {
  actor_kind?: 'api_key' | 'connector'
  shop_id?: string
  /** Inclusive bounds, YYYY-MM-DD or ISO date-times. */
  from?: string
  to?: string
  page_size?: number
  page_number?: number
}

export interface ActivityPage {
  data: ActivityEntry[]
  has_more: boolean
  total_count: number
  page_size: number
  page_number: number
}

const bound = (value: string, end: boolean): number => (/^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) + (end ? 86_400_000 - 1 : 0) : Date.parse(value))

/** One page of the log, newest first, filtered. */
export function readActivity(activity: readonly ActivityEntry[], query: ActivityQuery = {}): ActivityPage {
  const { actor_kind, shop_id, from, to, page_size = 50, page_number = 1 } = query
  const fromMs = from ? bound(from, false) : -Infinity
  const toMs = to ? bound(to, true) : Infinity
  // Entries' times are parsed only when a bound asks for them: the log holds up to ACTIVITY_MAX.
  const dated = from !== undefined || to !== undefined
  const matching: ActivityEntry[] = []
  for (let i = activity.length - 1; i >= 0; i--) {
    const entry = activity[i]!
    if (actor_kind && entry.actor.kind !== actor_kind) continue
    if (shop_id && entry.shop_id !== shop_id) continue
    if (dated) {
      const t = Date.parse(entry.time)
      if (t < fromMs || t > toMs) continue
    }
    matching.push(entry)
  }
  const start = (page_number - 1) * page_size
  return { data: matching.slice(start, start + page_size), has_more: start + page_size < matching.length, total_count: matching.length, page_size, page_number }
}

/**
 * `GET /account/activity` (inferred): the log through the REST door. A key limited to some shops sees
 * only those shops' entries and the account-level ones.
 */
export const listAccountActivity = defineHandler('listAccountActivity', async (ctx) => {
  const { actor_kind, shop_id, from, to, page_size = 50, page_number = 1 } = ctx.input
  const allowed = ctx.apiKey && ctx.apiKey.shops !== '*' ? new Set(ctx.apiKey.shops) : undefined
  if (allowed && shop_id && !allowed.has(shop_id)) throw apiError(403, 'Forbidden: this API key does not have access to this shop')
  const all = await ctx.state.activity.entries()
  const activity = allowed ? all.filter((e) => e.shop_id === null || allowed.has(e.shop_id)) : all
  return { status: 200, body: readActivity(activity, { ...(actor_kind ? { actor_kind } : {}), ...(shop_id ? { shop_id } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}), page_size, page_number }) }
})
