/**
 * Isolation (issue 8, Robustness; spec: Authentication 1, 3; Idempotency: scoped to the shop):
 * nothing of one shop is readable with another shop's id or with a key scoped to another shop,
 * swept across every read operation of the contract (every `list*`, `get*` and `search*`,
 * aliases and GET forms included), in-process.
 *
 * For every ordered pair of the account's shops (A asks, B is the other), each read answers A
 * without any id that exists only in B: ids from the world (products, SKUs, creators in the CRM,
 * videos, LIVEs, campaigns, creatives, apply ids, programs, ads...) and from records made at run
 * time in B (a dashboard, an automation, a group, a list, a workflow, an email campaign, a tag,
 * a brief and a community campaign where the plan allows, an idempotency record).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { JsonSchema, OperationInfo } from '../openapi/index.ts'
import { createMockState } from '../mock/index.ts'
import { MESSAGES } from '../mock/pipeline/auth.ts'
import { querySchema } from '../mock/pipeline/validate.ts'
import { exampleFromSchema } from '../mock/testing.ts'
import { queryText } from './support/fuzz.ts'
import { answerProblems, createInProcessClient, type Answer } from './support/in-process.ts'
import { allIds, shopIds } from './support/world-ids.ts'

const NOW = '2026-03-10T12:00:00.000Z'
// Not frozen: the test adds a key of its own to the world below.
const state = createMockState({ seed: 42, now: NOW, rateLimit: false, freezeWorld: false })
const { contract, world } = state
const client = createInProcessClient(state)
const shops = world.shops
const readOperations = contract.operations.filter((op) => /^(list|get|search)/.test(op.operationId))
const byId = (id: string) => contract.byId.get(id)!

// A key of the account limited to the first shop but allowed every route and tier, so the sweep
// meets the shop scope on every operation (demo-limited-key also lacks most routes). Test-only.
const SCOPED_KEY = 'robustness-scoped-key'
world.apiKeys.push({ key: SCOPED_KEY, label: 'robustness: every route, first shop only', tier: 'enterprise', routes: '*', shops: [shops[0].shop_id] } as (typeof world.apiKeys)[number])

/** Fields whose values legitimately name other shops or are not ids of records. */
const NOT_SHOP_RECORD_IDS = new Set(['shop_id', 'home_shop_id', 'rule_id', 'handle', 'store_id'])
// Platform-wide data: creators are not the shop's records (the creator index, market rankings).
const PLATFORM_WIDE = new Set(['listEnterpriseCreators', 'listEnterpriseBrands', 'listEnterpriseProducts'])

const DAY_MS = 86_400_000
const daysAgo = (n: number) => new Date(Date.parse(`${state.today}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10)

async function call(op: OperationInfo, shopId: string, input: Record<string, unknown> = {}, { key = 'demo-enterprise-key', path, idempotencyKey }: { key?: string; path?: string; idempotencyKey?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': key, 'x-shop-id': shopId }
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey
  return op.hasBody ? client.call(op, { path, headers, body: JSON.stringify(input) }) : client.call(op, { path, headers, query: queryText(input, 'none', 0) })
}

// ---------------------------------------------------------------------------------------------
// Requests for every read operation

const resolve = (s: JsonSchema | undefined): JsonSchema => {
  let out = s ?? {}
  for (let i = 0; i < 10 && typeof out.$ref === 'string'; i++) out = contract.doc.components.schemas[(out.$ref as string).split('/').pop()!] ?? {}
  return out
}
const schemaOf = (op: OperationInfo): JsonSchema => (op.hasBody ? (op.requestSchema ?? { type: 'object' }) : querySchema(op))

/**
 * A request reaching as many rows as the operation allows: every date range over the last year,
 * the largest page, archived and ignored rows included; `ids` fills id filters (another shop's ids).
 */
function wideRequest(op: OperationInfo, ids?: Map<string, Set<string>>): Record<string, unknown> {
  const base = (exampleFromSchema(contract, schemaOf(op), state.today) ?? {}) as Record<string, unknown>
  const fill = (schema: JsonSchema, target: Record<string, unknown>, depth: number) => {
    const props = (resolve(schema).properties ?? {}) as Record<string, JsonSchema>
    for (const [name, raw] of Object.entries(props)) {
      const s = resolve(raw)
      const isRange = typeof raw.$ref === 'string' && raw.$ref.endsWith('/DateRange')
      if (isRange) target[name] = { from: daysAgo(364), to: state.today }
      else if (name === 'page_size') target[name] = typeof s.maximum === 'number' ? s.maximum : 100
      else if (name === 'stats' && Array.isArray(resolve(s.items as JsonSchema).enum)) target[name] = resolve(s.items as JsonSchema).enum
      else if (['include_archived', 'include_ignored', 'include_ended', 'all_campaigns', 'include_charts'].includes(name)) target[name] = true
      else if (ids && /_ids?$/.test(name) && !NOT_SHOP_RECORD_IDS.has(name.replace(/s$/, ''))) {
        const pool = [...(ids.get(name.replace(/_ids$/, '_id')) ?? [])]
        if (!pool.length) continue
        const isArray = s.type === 'array' || (Array.isArray(s.anyOf) && (s.anyOf as JsonSchema[]).some((b) => resolve(b).type === 'array'))
        target[name] = isArray ? pool.slice(0, 5) : pool[0]
      } else if (op.hasBody && depth < 2 && s.type === 'object' && s.properties) {
        const inner = (target[name] ?? {}) as Record<string, unknown>
        fill(s, inner, depth + 1)
        if (Object.keys(inner).length) target[name] = inner
      }
    }
  }
  fill(schemaOf(op), base, 0)
  return base
}

// ---------------------------------------------------------------------------------------------
// Each shop's records: the world's, plus some made at run time

const runtimeIds = new Map<string, Map<string, Set<string>>>()
const ID_FIELD = /(^|_)id$|^(slug|short_id|share_link)$/

/** The id fields of an answer, into `into`. */
function collectIds(value: unknown, into: Map<string, Set<string>>, field = ''): void {
  if (Array.isArray(value)) return value.forEach((v) => collectIds(v, into, field))
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) collectIds(v, into, k === 'id' ? (field === 'widgets' ? 'widget_id' : 'dashboard_id') : k)
    return
  }
  if (typeof value === 'string' && ID_FIELD.test(field) && value.length >= 6) {
    const set = into.get(field) ?? new Set<string>()
    into.set(field, set.add(value))
  }
}

async function makeRecords(shopIndex: number) {
  const shop = shops[shopIndex]
  const ids = new Map<string, Set<string>>([['secret', new Set<string>()]])
  const secret = (what: string) => {
    const name = `secret-${what}-shop${shopIndex}-${shop.shop_id.slice(0, 8)}`
    ids.get('secret')!.add(name)
    return name
  }
  const handle = world.shopData[shop.shop_id].affiliates[0].handle
  const writes: Array<[string, Record<string, unknown>]> = [
    ['createDashboard', { name: secret('board') }],
    ['createAutomation', { title: secret('automation'), outreach_audience: 'new_affiliates', dm_messages: [{ type: 'text', content: 'hi' }] }],
    ['createGroup', { name: secret('group') }],
    ['createList', { title: secret('list'), handles: [handle] }],
    ['createWorkflow', { name: secret('workflow'), trigger: { type: 'new_affiliate' } }],
    ['createEmailCampaign', { title: secret('email'), subject: 'hello' }],
    ['addTag', { tag: secret('tag'), handles: [handle] }],
    ['createCreatorBrief', { title: secret('brief'), type: 'static' }],
    ['createCommunityCampaign', { title: secret('community'), type: 'race' }],
  ]
  for (const [operationId, body] of writes) {
    const answer = await call(byId(operationId), shop.shop_id, body, { idempotencyKey: byId(operationId).idempotent ? secret(`key-${operationId}`).slice(0, 100) : undefined })
    if (answer.status < 300) collectIds(JSON.parse(answer.text), ids)
  }
  runtimeIds.set(shop.shop_id, ids)
}

/** Ids of B's records that A does not also have (a board shared to A shows on A too). */
function exclusiveIds(a: string, b: string): Map<string, string> {
  const skipShared = (collection: string, record: Record<string, unknown>) => collection === 'dashboards' && Array.isArray(record.shared_with) && (record.shared_with as string[]).includes(a)
  const ofA = allIds(shopIds(world.shopData[a]))
  for (const set of runtimeIds.get(a)!.values()) for (const id of set) ofA.add(id)
  const out = new Map<string, string>()
  const add = (field: string, set: Set<string>) => {
    if (NOT_SHOP_RECORD_IDS.has(field)) return
    for (const id of set) if (!ofA.has(id)) out.set(id, field)
  }
  for (const [field, set] of shopIds(world.shopData[b], { skip: skipShared })) add(field, set)
  for (const [field, set] of runtimeIds.get(b)!) add(field, set)
  return out
}

/** B's ids found in an answer: long ids as substrings, short ones only as whole JSON strings. */
function leaks(text: string, forbidden: Map<string, string>, sent: Set<string>): string[] {
  const found: string[] = []
  for (const [id, field] of forbidden) {
    if (sent.has(id)) continue
    if (id.length >= 10 ? text.includes(id) : text.includes(JSON.stringify(id))) found.push(`${field} ${id}`)
  }
  return found
}

const stringsIn = (value: unknown, out = new Set<string>()): Set<string> => {
  if (typeof value === 'string') out.add(value)
  else if (Array.isArray(value)) value.forEach((v) => stringsIn(v, out))
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => stringsIn(v, out))
  return out
}

beforeAll(async () => {
  // The default boards exist once the dashboards are opened in the app (spec: Dashboards).
  for (const shop of shops) await state.admin.run('dashboards/open', { shop_id: shop.shop_id })
  for (let i = 0; i < shops.length; i++) await makeRecords(i)
})

describe('isolation: nothing of one shop is readable from another (spec: Authentication 3; issue 8: Robustness)', () => {
  it(`isolation: the sweep covers every read operation of the contract (${readOperations.length})`, () => {
    expect(readOperations.length).toBeGreaterThanOrEqual(54)
    for (const [shopId, ids] of runtimeIds) expect(ids.get('secret')!.size, shopId).toBeGreaterThan(8)
    // Runtime records really were made (at least dashboards, automations, groups, lists in every shop).
    for (const ids of runtimeIds.values()) for (const field of ['dashboard_id', 'campaign_id', 'group_id']) expect(ids.get(field)?.size ?? 0, field).toBeGreaterThan(0)
  })

  it('isolation: the sweep has teeth: asked by shop B itself, the same requests show B\'s ids of every kind', async () => {
    const [a, b] = shops
    const forbidden = exclusiveIds(a.shop_id, b.shop_id)
    const seen = new Set<string>()
    const notAnswered: string[] = []
    for (const op of readOperations) {
      const answer = await call(op, b.shop_id, wideRequest(op), { path: op.path.replace('{key}', 'x') })
      // The by-id reads answer 404 for the placeholder id; every other read must reach its rows.
      if (answer.status !== 200 && !op.pathParams.length && !/^get(Dashboard|Workflow)/.test(op.operationId)) notAnswered.push(`${op.operationId} ${answer.status} ${answer.text.slice(0, 120)}`)
      for (const leak of leaks(answer.text, forbidden, new Set())) seen.add(leak.split(' ')[0])
    }
    expect(notAnswered).toEqual([])
    for (const field of ['product_id', 'sku_id', 'creator_id', 'video_id', 'live_id', 'apply_id', 'campaign_id', 'spark_code', 'program_id', 'ad_id', 'group_id', 'workflow_id', 'dashboard_id', 'secret']) {
      expect(seen, field).toContain(field)
    }
  })

  it.each(readOperations.map((op) => [op.operationId, op] as const))('isolation: %s answers shop A without any id that only shop B has, for every pair of shops', async (_, op) => {
    const problems: string[] = []
    let answered = 0
    for (const a of shops) {
      for (const b of shops) {
        if (a === b) continue
        const forbidden = exclusiveIds(a.shop_id, b.shop_id)
        if (PLATFORM_WIDE.has(op.operationId)) for (const [id, field] of forbidden) if (field === 'creator_id' || field === 'product_id') forbidden.delete(id)
        const bIds = new Map([...shopIds(world.shopData[b.shop_id])].map(([f, s]) => [f, new Set([...s, ...(runtimeIds.get(b.shop_id)!.get(f) ?? [])])]))
        for (const [label, input] of [['wide', wideRequest(op)], ['with B\'s ids', wideRequest(op, bIds)]] as const) {
          const path = op.path.replace('{key}', 'secret-key-shop-b')
          const answer = await call(op, a.shop_id, input, { path })
          answered++
          for (const p of answerProblems(contract, op, answer)) problems.push(`${label}: ${p}`)
          for (const leak of leaks(answer.text, forbidden, stringsIn(input))) problems.push(`${label}: ${op.operationId} for shop ${a.shop_id} shows shop ${b.shop_id}'s ${leak}`)
        }
      }
    }
    expect(answered).toBe(shops.length * (shops.length - 1) * 2)
    expect(problems).toEqual([])
  })

  it('isolation: a board, workflow or automation of shop B is 404 when asked for by id from shop A', async () => {
    const [a, b] = shops
    const ofB = runtimeIds.get(b.shop_id)!
    const board = [...ofB.get('dashboard_id')!][0]
    const workflow = [...(ofB.get('workflow_id') ?? world.shopData[b.shop_id].workflows.map((w) => w.workflow_id))][0]
    for (const [operationId, input] of [
      ['getDashboard', { dashboard_id: board }],
      ['getDashboardGet', { dashboard_id: board }],
      ['getDashboardData', { dashboard_id: board }],
      ['getWorkflow', { workflow_id: workflow }],
    ] as const) {
      const fromB = await call(byId(operationId), b.shop_id, input)
      expect(fromB.status, `${operationId} from B`).toBe(200)
      const fromA = await call(byId(operationId), a.shop_id, input)
      expect(fromA.status, `${operationId} from A`).toBe(404)
      expect(answerProblems(contract, byId(operationId), fromA)).toEqual([])
    }
  })

  it('isolation: shop A\'s idempotency records are 404 from shop B (spec: Idempotency: scoped to the shop in x-shop-id)', async () => {
    const [a, b] = shops
    const write = await call(byId('approveSampleRequests'), a.shop_id, { apply_ids: [] }, { idempotencyKey: 'isolation-key-a' })
    expect(write.status).toBe(200)
    const lookup = byId('getIdempotencyRecord')
    const fromA = await call(lookup, a.shop_id, {}, { path: '/idempotency/isolation-key-a' })
    expect(fromA.status).toBe(200)
    expect(JSON.parse(fromA.text).idempotency.response_body).toEqual(JSON.parse(write.text))
    for (const other of [b, ...shops.slice(2)]) {
      const fromOther = await call(lookup, other.shop_id, {}, { path: '/idempotency/isolation-key-a' })
      expect(fromOther.status).toBe(404)
      expect(fromOther.text).not.toContain('success_count')
    }
    // The same key on B is B's own: a fresh write, not A's replay.
    const onB = await call(byId('approveSampleRequests'), b.shop_id, { apply_ids: [] }, { idempotencyKey: 'isolation-key-a' })
    expect(onB.headers.get('idempotent-replayed')).toBeNull()
  })

  it.each(readOperations.filter((op) => op.auth === 'key+shop').map((op) => [op.operationId, op] as const))('isolation: %s refuses a key scoped to another shop with 403, and another account\'s shop with 403 (spec: Authentication 3)', async (_, op) => {
    const input = wideRequest(op)
    const path = op.path.replace('{key}', 'secret-key')
    for (const other of shops.slice(1)) {
      const scoped = await call(op, other.shop_id, input, { key: SCOPED_KEY, path })
      expect(scoped.status).toBe(403)
      expect(JSON.parse(scoped.text)).toEqual({ error: MESSAGES.shop })
      const limited = await call(op, other.shop_id, input, { key: 'demo-limited-key', path })
      expect(limited.status).toBe(403)
      expect(answerProblems(contract, op, limited)).toEqual([])
    }
    // The same key on its own shop passes the shop check (whatever the operation then answers).
    const own = await call(op, shops[0].shop_id, input, { key: SCOPED_KEY, path })
    expect(own.text).not.toBe(JSON.stringify({ error: MESSAGES.shop }))
    const foreign = await call(op, world.foreignShops[0].shop_id, input, { path })
    expect(foreign.status).toBe(403)
    expect(JSON.parse(foreign.text)).toEqual({ error: MESSAGES.shopNotOwned })
  })
})
