/**
 * Records the contract's examples by running the mock on the seeded demo world (seed 42, scale small, today
 * 2026-03-10, clock frozen at noon UTC): each operation's request (openapi/examples/requests.ts) and
 * the answer the mock gives, on a fresh world each, so that every example stands alone and the file is
 * the same on every run. The error responses' examples are answers too (a missing shop header, an
 * unknown key...). Arrays in answers are cut to their first three items to keep the document readable.
 *
 * Run `node openapi/examples/generate.ts` (then `npm run build:openapi`) after a change to the mock or
 * the world that changes an answer; test/contract-examples.test.ts checks that every example still
 * validates against its schema.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { getResponse } from 'msw'
import { createOperationRoutes } from '../../mock/handlers.ts'
import { createMockState } from '../../mock/index.ts'
import type { OperationInfo } from '../index.ts'
import type { RecordedExample, RecordedExamples } from './recorded.ts'
import { exampleRequests, type ExampleContext, type ExampleRequest } from './requests.ts'

export const EXAMPLE_WORLD = { seed: 42, scale: 'small', today: '2026-03-10', now: '2026-03-10T12:00:00.000Z' } as const
const ORIGIN = 'https://api.example.com'
const KEY = 'demo-enterprise-key'
/** Items kept per array of an answer. */
const ARRAY_ITEMS = 3

/**
 * A query string by each parameter's OpenAPI serialisation: `content: application/json` as JSON
 * text, `deepObject` as `name[key]=value`, arrays as repeated keys (form, explode), scalars as text.
 */
export function serialiseQuery(op: OperationInfo, values: Record<string, unknown>): string {
  const params = new Map(op.query.map((p) => [p.name, p]))
  const parts: string[] = []
  const pair = (name: string, value: unknown) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`
  for (const [name, value] of Object.entries(values)) {
    const p = params.get(name)
    if (p?.json) parts.push(pair(name, JSON.stringify(value)))
    else if (Array.isArray(value)) parts.push(...value.map((v) => pair(name, v)))
    else if (value !== null && typeof value === 'object') parts.push(...Object.entries(value).map(([k, v]) => `${encodeURIComponent(name)}[${encodeURIComponent(k)}]=${encodeURIComponent(String(v))}`))
    else parts.push(pair(name, value))
  }
  return parts.join('&')
}

/** The answer with every array cut to its first items. */
function trimmed(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, ARRAY_ITEMS).map(trimmed)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trimmed(v)]))
  return value
}

/** The builder of an operation's request: its own, else its GET form's or canonical operation's. */
function builderOf(op: OperationInfo) {
  return exampleRequests[op.operationId] ?? exampleRequests[op.operationId.replace(/V1$/, '')] ?? (op.aliasOf ? exampleRequests[op.aliasOf] : undefined)
}

export async function recordExamples(): Promise<RecordedExamples> {
  const state = createMockState({ ...EXAMPLE_WORLD, rateLimit: false })
  const routes = new Map(createOperationRoutes(state, { baseUrl: ORIGIN, log: () => {} }).map((r) => [r.op.operationId, r]))
  const mainShop = () => state.world.shops[0]!

  async function send(op: OperationInfo, request: Omit<ExampleRequest, 'summary'>, { key = KEY as string | null, shop = mainShop().shop_id as string | null } = {}) {
    let path = op.path
    for (const [name, value] of Object.entries(request.path ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(value))
    const query = request.query ? serialiseQuery(op, request.query) : ''
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}), ...(shop && op.auth === 'key+shop' ? { 'x-shop-id': shop } : {}), ...request.headers }
    const url = `${ORIGIN}${path}${query ? `?${query}` : ''}`
    const body = op.method === 'GET' ? undefined : JSON.stringify(request.body ?? {})
    const response = await getResponse([routes.get(op.operationId)!.handler], new Request(url, { method: op.method, headers, body }))
    if (!response) throw new Error(`${op.operationId}: no handler answered ${op.method} ${url}`)
    const text = await response.text()
    return { status: response.status, json: JSON.parse(text) as any }
  }
  const byId = (operationId: string) => state.contract.byId.get(operationId)!

  const operations: Record<string, RecordedExample> = {}
  for (const op of state.contract.operations) {
    const build = builderOf(op)
    if (!build) throw new Error(`${op.operationId}: no example request in openapi/examples/requests.ts`)
    state.reset()
    state.clock.set(EXAMPLE_WORLD.now)
    const shop = mainShop()
    const ctx: ExampleContext = {
      world: state.world,
      shop,
      data: state.world.shopData[shop.shop_id]!,
      today: EXAMPLE_WORLD.today,
      call: (operationId, request) => send(byId(operationId), request),
    }
    const { summary, ...request } = await build(ctx)
    // A GET form given its POST operation's builder sends the body as its query.
    if (op.method === 'GET' && request.body) {
      request.query = request.body
      delete request.body
    }
    const answer = await send(op, request)
    if (answer.status !== op.successStatus) throw new Error(`${op.operationId}: the example request answered ${answer.status} ${JSON.stringify(answer.json)}`)
    operations[op.operationId] = { summary, request, response: { status: answer.status, body: trimmed(answer.json) } }
  }

  // The error responses, each an answer of the mock too.
  state.reset()
  state.clock.set(EXAMPLE_WORLD.now)
  const errors: RecordedExamples['errors'] = {}
  const record = async (component: string, summary: string, status: number, run: () => Promise<{ status: number; json: any }>) => {
    const answer = await run()
    if (answer.status !== status) throw new Error(`${component}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.json)}`)
    errors[component] = { summary, body: answer.json }
  }
  const board = { name: 'Weekly creator review' }
  await record('BadRequest', 'No x-shop-id header', 400, () => send(byId('getShopSps'), {}, { shop: null }))
  await record('Unauthorized', 'No x-api-key header', 401, () => send(byId('getShopSps'), {}, { key: null }))
  await record('Forbidden', 'A key limited to other routes', 403, () => send(byId('listCrmAffiliates'), { body: {} }, { key: 'demo-limited-key' }))
  await record('NotFound', 'Nothing stored for this Idempotency-Key', 404, () => send(byId('getIdempotencyRecord'), { path: { key: 'never-used-key' } }))
  await send(byId('createDashboard'), { body: board })
  await record('Conflict', 'A board of that name already exists', 409, () => send(byId('createDashboard'), { body: board }))
  const created = await send(byId('createDashboard'), { body: { name: 'Launch board' } })
  await send(byId('updateDashboard'), { body: { dashboard_id: created.json.data.id, name: 'Launch board (v2)' } })
  await record('PreconditionFailed', 'The board changed since it was read', 412, () =>
    send(byId('updateDashboard'), { body: { dashboard_id: created.json.data.id, name: 'Launch board (v3)', expected_updated_at: created.json.data.updated_at } }))
  await send(byId('createGroup'), { body: { name: 'Rising stars' }, headers: { 'Idempotency-Key': 'spring-2026-a' } })
  await record('IdempotentBadRequest', 'An Idempotency-Key first used on another operation (inferred)', 400, () =>
    send(byId('createList'), { body: { title: 'Spring seeding', handles: ['a.creator'] }, headers: { 'Idempotency-Key': 'spring-2026-a' } }))
  state.admin.addFault({ route: 'getShopSps', status: 503, message: 'Service temporarily unavailable' })
  await record('ServerError', 'An outage (injected with POST /__admin/faults)', 503, () => send(byId('getShopSps'), {}))
  state.rateLimit = true
  let last = { status: 0, json: {} as any }
  for (let i = 0; i < 11 && last.status !== 429; i++) last = await send(byId('getShopSps'), {})
  await record('TooManyRequests', 'Over 10 requests in one second', 429, async () => last)
  state.rateLimit = false
  // The body-size limit is the Node server's (mock/server.ts), not the handlers': its message, as the server writes it.
  errors.PayloadTooLarge = { summary: 'A body over 10 MB (the Node server\'s limit)', body: { error: 'Request body larger than 10485760 bytes' } }

  return { world: EXAMPLE_WORLD, operations, errors }
}


if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const recorded = await recordExamples()
  writeFileSync(fileURLToPath(new URL('./recorded.json', import.meta.url)), `${JSON.stringify(recorded, null, 1)}\n`)
  console.log(`wrote openapi/examples/recorded.json (${Object.keys(recorded.operations).length} operations, ${Object.keys(recorded.errors).length} error responses)`)
}
