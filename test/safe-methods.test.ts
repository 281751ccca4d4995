/**
 * Safe methods change nothing, and HEAD is GET without its body (RFC 9110 9.2.1, 9.3.2, 8.6), on
 * every door of the twin: the standalone server (`shoptwin serve`: the API, the connector and the
 * control API on one listener) and the MSW handlers (the API's, the control API's and the
 * connector's). Generated from the contract: every path of every operation, the API's and the
 * connector's (`x-shoptwin-door: connector`), each called as the contract describes it (its
 * parameters' examples, and the smallest valid call), plus the control API's paths and one unknown
 * path per door; each with HEAD, then GET, then OPTIONS, TRACE (the server) and PROPFIND (safe too,
 * RFC 4918 9.1).
 *
 * What "the state" is (decided here; the spec says nothing of methods): what the twin's log holds
 * (area writes, connector operations, clock moves, resets, faults: `GET /__admin/metrics`'s `head`,
 * the log a replica replays) and what `GET /__admin/state` and `GET /__admin/faults` show, but the
 * journal's size and the response cache's counters. Not state: the request journal, the traces and
 * the account's activity log, which record every request (RFC 9110 9.2.1 leaves a server its logs;
 * mock/stores/activity.ts keeps the activity log out of the twin's log for that reason), and the
 * rate-limit counters (spec: Limits counts every request; a HEAD is one, answered as its GET would be).
 *
 * A safe method's answer: HEAD's status and header fields are its GET's (Content-Length too: the
 * octets GET would send, RFC 9110 8.6), with no body; every answer is one the contract declares
 * (the operation's own, or the document's `MethodNotAllowed` for a method the path does not take).
 * A GET changes nothing either, but the two the spec or OAuth define as starting something, listed in
 * `GET_EFFECTS` with their reason; HEAD answers as those GETs would, and starts nothing.
 */
import { request as httpRequest, Agent } from 'node:http'
import { getResponse, type HttpHandler } from 'msw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminMethods, createAdminHandlers } from '../mock/admin.ts'
import { CONNECTOR_METHODS, createConnectorHandlers, ownsPath } from '../mock/connector/index.ts'
import { createHandlers, createMockState, createServer, type MockServer } from '../mock/index.ts'
import { allowedMethods } from '../mock/methods.ts'
import type { MockState } from '../mock/state.ts'
import { contractProblem, minimalCall } from '../mock/testing.ts'
import type { TwinOp } from '../mock/twin/ops.ts'
import { EXAMPLE_WORLD, serialiseQuery } from '../openapi/examples/generate.ts'
import { indexConnectorOperations, loadContract, responseKeyOf, type ConnectorOperationInfo, type OperationInfo } from '../openapi/index.ts'
import { hiddenFields } from './connector-helpers.ts'

const API = 'https://api.safe-methods.test'
const MCP = 'https://mcp.safe-methods.test'
/** The idempotency key of the keyed write made before the sweep (so `GET /idempotency/{key}` finds a record). */
const KEY = 'safe-methods-key'
/** The methods RFC 9110 9.2.1 calls safe, but HEAD and GET (sent first) and TRACE (the server's only: fetch cannot send it); PROPFIND is safe by RFC 4918 9.1. */
const OTHER_SAFE = ['OPTIONS', 'TRACE', 'PROPFIND']

/**
 * The GETs that may change the twin, and how. Every other GET, and every HEAD, OPTIONS, TRACE and
 * PROPFIND, changes nothing.
 */
const GET_EFFECTS: Record<string, { ops: string[]; why: string }> = {
  startConnectorAuthorization: {
    ops: ['connector startAuthorization'],
    why: 'RFC 6749 3.1, 4.1.1: the authorization request is a GET; the connector keeps it pending for the sign-in and consent forms, which name it by the request_id only the page carries',
  },
  getHaloReportGet: {
    ops: ['write halo.settleStorefront', 'write halo.startBuild', 'write halo.fetchMarketplace'],
    why: 'spec: States and transitions (Halo): "the first report call starts a refresh"; POST /halo-effect is "also GET"; marketplace numbers are fetched live and cached',
  },
}

/** A logged operation of the twin as `kind area.name` (`write halo.startBuild`, `connector startAuthorization`, `clock`). */
const opName = (op: TwinOp): string => ('area' in op ? `${op.kind} ${op.area}.${op.name}` : 'name' in op ? `${op.kind} ${op.name}` : op.kind)

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

/** One path to call, and which part of the door answers it. */
interface Probe {
  part: 'api' | 'connector' | 'admin' | 'unknown'
  /** The path and query as sent. */
  target: string
  headers: Record<string, string>
  /** The methods the path documents (the Allow list is made from them). */
  documented: string[]
  /** The operation GET calls, when the path has one (its answer is checked against it). */
  getOp?: OperationInfo | ConnectorOperationInfo
  /** What the sweep calls it. */
  label: string
}

interface Door {
  name: 'server' | 'msw'
  state: MockState
  /** Every operation of the twin's log, in order. */
  ops: TwinOp[]
  /** One request (the MSW door sends the connector's paths to its own origin). */
  send(method: string, request: Pick<Probe, 'target' | 'headers'>, options?: { body?: string; headOnly?: boolean }): Promise<Answer | undefined>
  /** The connector's MCP endpoint URL (a `resource` of an authorization request). */
  mcpUrl: string
  close(): Promise<void>
}

const newState = (ops: TwinOp[]) => createMockState({ ...EXAMPLE_WORLD, rateLimit: false, onOp: (entry) => ops.push(entry.op) })

async function serverDoor(): Promise<Door> {
  const ops: TwinOp[] = []
  const state = newState(ops)
  const mock: MockServer = createServer({ state, log: () => {} })
  const base = await mock.listen(0, '127.0.0.1')
  const { port } = new URL(base)
  const agent = new Agent({ keepAlive: true, maxSockets: 4 })
  return {
    name: 'server',
    state,
    ops,
    mcpUrl: `${base}/mcp`,
    send: (method, { target, headers }, { body, headOnly = false } = {}) =>
      new Promise((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, method, path: target, headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) }, agent: headOnly ? false : agent }, (res) => {
          const answer = (text: string): Answer => ({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body: text })
          // An endless answer (the console's event stream): its head, then the connection goes.
          if (headOnly) {
            resolve(answer(''))
            return void res.destroy()
          }
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve(answer(Buffer.concat(chunks).toString('utf8'))))
        })
        req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${target}: no answer within 10 s`)))
        req.on('error', reject)
        req.end(body)
      }),
    async close() {
      agent.destroy()
      await mock.close({ graceMs: 100 })
    },
  }
}

async function mswDoor(): Promise<Door> {
  const ops: TwinOp[] = []
  const state = newState(ops)
  const handlers: HttpHandler[] = [...createHandlers(state, { baseUrl: API, log: () => {} }), ...createAdminHandlers(state, { baseUrl: API }), ...createConnectorHandlers(state, { baseUrl: MCP, log: () => {} })]
  return {
    name: 'msw',
    state,
    ops,
    mcpUrl: `${MCP}/mcp`,
    async send(method, { target, headers }, { body } = {}) {
      // The connector's paths are on its own origin.
      const origin = ownsPath(target.split('?')[0]!) ? MCP : API
      const response = await getResponse(handlers, new Request(`${origin}${target}`, { method, headers, ...(body ? { body } : {}) }))
      if (!response) return undefined
      return { status: response.status, headers: Object.fromEntries(response.headers), body: response.body ? await response.text() : '' }
    },
    close: async () => {},
  }
}

/** What the twin holds, read through the control API (module docblock: what counts). */
async function snapshot(door: Door): Promise<Record<string, unknown>> {
  const read = async (path: string) => {
    const answer = await door.send('GET', { target: path, headers: {} })
    expect(answer?.status, `GET ${path}`).toBe(200)
    return JSON.parse(answer!.body) as Record<string, unknown>
  }
  const { head } = await read('/__admin/metrics')
  const { journalEntries: _journal, responseCache: _cache, ...state } = await read('/__admin/state')
  const { faults } = await read('/__admin/faults')
  return { head, ...state, faults }
}

const contract = loadContract()
const doc = contract.doc as unknown as { components: { responses: Record<string, any> }; paths: Record<string, Record<string, any>> }
const methodNotAllowed = doc.components.responses.MethodNotAllowed
const validate405 = contract.validators.compile('MethodNotAllowed', methodNotAllowed.content['application/json'].schema)
const connectorOps = indexConnectorOperations(contract.doc)

/** The query of an operation's documented example (its parameters' examples of one name), or undefined when it has none. */
function exampleValues(operation: Record<string, any>): { query: Record<string, unknown>; path: Record<string, string> } | undefined {
  const params = (operation.parameters ?? []).map((p: Record<string, any>) => (p.$ref ? undefined : p)).filter(Boolean) as Array<Record<string, any>>
  const examplesOf = (p: Record<string, any>) => (p.examples ?? p.content?.['application/json']?.examples) as Record<string, { value: unknown }> | undefined
  const name = params.map(examplesOf).flatMap((e) => Object.keys(e ?? {}))[0]
  if (!name) return undefined
  const query: Record<string, unknown> = {}
  const path: Record<string, string> = {}
  for (const p of params) {
    const example = examplesOf(p)?.[name]
    if (!example) continue
    if (p.in === 'query') query[p.name] = example.value
    if (p.in === 'path') path[p.name] = String(example.value)
  }
  return { query, path }
}

/** Every path the sweep calls on one door, made from the contract and the control API's table. */
function probesOf(door: Door, ctx: { clientId: string; cookie: string; requestId: string; traceId: string }): Probe[] {
  const shop = door.state.world.shops[0]!
  const keyed = { 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id }
  const probes: Probe[] = []

  // The API: each path with the methods its operations document; a GET operation called as its example and as its smallest valid call.
  const apiPaths = new Map<string, OperationInfo[]>()
  for (const op of contract.operations) apiPaths.set(op.path, [...(apiPaths.get(op.path) ?? []), op])
  for (const [path, ops] of apiPaths) {
    const documented = ops.map((o) => o.method)
    const getOp = ops.find((o) => o.method === 'GET')
    if (!getOp) {
      probes.push({ part: 'api', target: path, headers: keyed, documented, label: path })
      continue
    }
    const minimal = minimalCall(contract, getOp, EXAMPLE_WORLD.today)
    const targets = [`${minimal.path}${minimal.query ? `?${minimal.query}` : ''}`]
    const example = exampleValues(getOp.operation)
    if (example) {
      let filled = path
      for (const [name, value] of Object.entries(example.path)) filled = filled.replace(`{${name}}`, encodeURIComponent(value))
      const query = serialiseQuery(getOp, example.query)
      targets.push(`${filled}${query ? `?${query}` : ''}`)
    }
    // A key that names a stored record (the examples' keys name none in this world).
    if (getOp.pathParams.some((p) => p.name === 'key')) targets.push(path.replace('{key}', KEY))
    for (const target of targets) probes.push({ part: 'api', target, headers: keyed, documented, getOp, label: `${getOp.operationId} ${target}` })
  }

  // The connector: its paths as the contract documents them; the authorization request as its example,
  // then for a registered client (signed in or not, and the pending request shown again by its id).
  for (const [path, methods] of Object.entries(CONNECTOR_METHODS)) {
    const getOp = connectorOps.find((o) => o.path === path && o.method === 'GET')
    // The connector's own table: /mcp documents GET and DELETE only to refuse them (405).
    const documented = [...methods]
    const targets: Array<[string, Record<string, string>]> = [[path, {}]]
    if (getOp?.operationId === 'startConnectorAuthorization') {
      const { query } = exampleValues(getOp.operation)!
      const asString = (values: Record<string, unknown>) => new URLSearchParams(values as Record<string, string>).toString()
      const ours = { ...query, client_id: ctx.clientId }
      targets.push(
        [`${path}?${asString(query)}`, {}],
        [`${path}?${asString(ours)}`, {}],
        [`${path}?${asString({ ...ours, resource: door.mcpUrl })}`, {}],
        [`${path}?${asString({ ...ours, resource: door.mcpUrl })}`, { cookie: ctx.cookie }],
        [`${path}?request_id=${ctx.requestId}`, {}],
        [`${path}?request_id=${ctx.requestId}`, { cookie: ctx.cookie }],
      )
    }
    if (getOp?.operationId === 'listConnectorConnections') targets.push([path, { cookie: ctx.cookie }])
    for (const [target, headers] of targets) {
      const label = `${getOp?.operationId ?? path} ${target}${headers.cookie ? ' (signed in)' : ''}`
      probes.push({ part: 'connector', target, headers, documented, ...(getOp ? { getOp } : {}), label })
    }
  }

  // The control API (its GETs read; its writes are only asked what they allow).
  const adminPaths = new Map<string, string[]>()
  for (const [path, method] of adminMethods(door.state.admin)) adminPaths.set(path, [...(adminPaths.get(path) ?? []), method])
  for (const [path, documented] of adminPaths) {
    const target = path.replace('{id}', ctx.traceId)
    probes.push({ part: 'admin', target, headers: {}, documented, label: target })
  }
  for (const sub of ['limits', 'areas', 'connector']) probes.push({ part: 'admin', target: `/__admin/console/${sub}`, headers: {}, documented: ['GET'], label: `/__admin/console/${sub}` })
  // The console's page, assets and live feed are the standalone server's (mock/console/serve.ts).
  if (door.name === 'server') for (const sub of ['', '/console.js', '/console.css', '/events']) probes.push({ part: 'admin', target: `/__admin/console${sub}`, headers: {}, documented: ['GET', 'HEAD'], label: `/__admin/console${sub}` })

  // A path nobody documents: 404 whatever the method (OPTIONS: 204, the CORS preflight). The MSW
  // handlers leave the API's and the control API's to the next handlers; the connector's answer.
  const unknown = door.name === 'server' ? ['/no-such-path', '/__admin/no-such-route', '/oauth/no-such-endpoint'] : ['/oauth/no-such-endpoint']
  for (const target of unknown) probes.push({ part: 'unknown', target, headers: keyed, documented: [], label: target })
  // The GETs that start something go last: every other call meets the twin as the setup left it (a
  // read that writes only in some state, as a storefront snapshot due to be settled, is met in it).
  const starts = (p: Probe) => (p.getOp && GET_EFFECTS[p.getOp.operationId] ? 1 : 0)
  return probes.sort((a, b) => starts(a) - starts(b))
}

/** What is wrong with an answer against the contract (the operation's entry, or the document's MethodNotAllowed). */
function contractProblemOf(probe: Probe, method: string, answer: Answer): string | undefined {
  const where = `${method} ${probe.label}`
  if (answer.status >= 500) return `${where}: ${answer.status} ${answer.body.slice(0, 200)}`
  const allow = allowedMethods(probe.documented)
  if (method === 'OPTIONS') {
    if (probe.part === 'unknown') return answer.status === 204 ? undefined : `${where}: ${answer.status}, expected 204 (CORS preflight)`
    if (answer.status !== 204) return `${where}: ${answer.status}, expected 204`
    return answer.headers.allow === allow.join(', ') ? undefined : `${where}: Allow ${answer.headers.allow}, expected ${allow.join(', ')}`
  }
  if (probe.part === 'unknown') {
    if (answer.status !== 404) return `${where}: ${answer.status}, expected 404`
    return method === 'HEAD' || typeof JSON.parse(answer.body).error === 'string' ? undefined : `${where}: 404 body is not {error}: ${answer.body.slice(0, 200)}`
  }
  // The console's page and feed (mock/console/serve.ts) take GET and HEAD only.
  const asGet = method === 'HEAD' ? 'GET' : method
  const takes = probe.documented.includes(asGet) || (method === 'HEAD' && probe.documented.includes('HEAD'))
  if (!takes) {
    if (answer.status !== 405) return `${where}: ${answer.status}, expected 405`
    if (!answer.headers.allow) return `${where}: 405 without Allow`
    if (method === 'HEAD') return answer.body ? `${where}: HEAD answered with a body` : undefined
    let body: unknown
    try {
      body = JSON.parse(answer.body)
    } catch {
      return `${where}: 405 body is not JSON: ${answer.body.slice(0, 100)}`
    }
    if (probe.part === 'admin' && !probe.target.startsWith('/__admin/console')) return validate405(body) ? undefined : `${where}: 405 body does not validate against the contract's MethodNotAllowed: ${answer.body.slice(0, 200)}`
    if (probe.part === 'admin') return undefined
    // Declared per operation where the path documents the method (GET and DELETE /mcp), else by the document's MethodNotAllowed.
    const declared = connectorOps.find((o) => o.path === probe.target.split('?')[0] && o.method === method)
    if (declared) return connectorProblem(declared, method, answer)
    return validate405(body) ? undefined : `${where}: 405 body does not validate against the contract's MethodNotAllowed: ${answer.body.slice(0, 200)}`
  }
  if (method === 'HEAD' && answer.body) return `${where}: HEAD answered with a body`
  const op = probe.getOp
  if (!op) return undefined // the control API: not in the contract (its shape is mock/admin.ts's)
  if (probe.part === 'connector') return connectorProblem(op as ConnectorOperationInfo, method, answer)
  const api = op as OperationInfo
  if (method === 'HEAD') return api.statuses.includes(answer.status) ? undefined : `${where}: ${answer.status} is not documented for ${api.operationId} (${api.statuses.join(', ')})`
  const problem = contractProblem(contract, api, answer.status, answer.body)
  return problem && `${where}: ${problem}`
}

/** A connector answer against its operation's entry: status, required headers, media type and body (none on a HEAD). */
function connectorProblem(op: ConnectorOperationInfo, method: string, answer: Answer): string | undefined {
  const where = `${method} ${op.path} (${op.operationId})`
  const key = responseKeyOf(op, answer.status)
  if (!key) return `${where}: ${answer.status} is not documented: ${answer.body.slice(0, 200)}`
  const documented = op.operation.responses[key] as { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean }> }
  for (const [name, header] of Object.entries(documented.headers ?? {})) if (header.required && answer.headers[name.toLowerCase()] === undefined) return `${where} ${answer.status}: no ${name} header`
  if (!documented.content) return answer.body ? `${where} ${answer.status}: a body where none is documented` : undefined
  const type = (answer.headers['content-type'] ?? '').split(';')[0]!.trim()
  if (!(type in documented.content)) return `${where} ${answer.status}: ${type || 'untyped'}, documented ${Object.keys(documented.content).join(', ')}`
  if (method === 'HEAD') return undefined
  const validate = contract.validators.response(op, answer.status, type)!
  return validate(type === 'application/json' ? JSON.parse(answer.body) : answer.body) ? undefined : `${where} ${answer.status}: ${JSON.stringify(validate.errors?.[0])} in ${answer.body.slice(0, 200)}`
}

/** Header fields a HEAD's answer need not repeat: per connection, per message, or naming the request (its trace). */
const PER_MESSAGE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'x-shoptwin-trace'])
/** Answers that list the requests themselves (the account's activity log): the HEAD before the GET is in the GET's, so the lengths differ by it. */
const LISTS_REQUESTS = new Set(['listAccountActivity'])

/** How HEAD's head differs from GET's (RFC 9110 9.3.2; 8.6: its Content-Length, if any, is GET's). */
function headProblems(probe: Probe, head: Answer, get: Answer): string[] {
  const out: string[] = []
  const where = `HEAD ${probe.label}`
  if (head.status !== get.status) out.push(`${where}: ${head.status}, GET ${get.status}`)
  if (head.body !== '') out.push(`${where}: a body of ${head.body.length} characters`)
  const names = new Set([...Object.keys(head.headers), ...Object.keys(get.headers)])
  for (const name of names) {
    if (PER_MESSAGE.has(name)) continue
    if (name === 'content-length' && probe.getOp && LISTS_REQUESTS.has(probe.getOp.operationId)) continue
    if (head.headers[name] !== get.headers[name]) out.push(`${where}: ${name} ${JSON.stringify(head.headers[name])}, GET ${JSON.stringify(get.headers[name])}`)
  }
  if (('x-shoptwin-trace' in head.headers) !== ('x-shoptwin-trace' in get.headers)) out.push(`${where}: x-shoptwin-trace on one answer only`)
  // The MSW door's answers carry no Content-Length; the server's GET carries its body's.
  if (get.headers['content-length'] !== undefined && Number(get.headers['content-length']) !== Buffer.byteLength(get.body) && !probe.target.endsWith('/events')) out.push(`GET ${probe.label}: content-length ${get.headers['content-length']} for ${Buffer.byteLength(get.body)} octets`)
  return out
}

for (const makeDoor of [serverDoor, mswDoor]) {
  describe(`safe methods on the ${makeDoor === serverDoor ? 'standalone server' : 'MSW handlers'} (RFC 9110 9.2.1, 9.3.2, 8.6)`, () => {
    let door: Door
    let probes: Probe[]
    beforeAll(async () => {
      door = await makeDoor()
      // What the sweep reads must exist: a registered client, a signed-in user, a pending authorization, a keyed write's record, a trace.
      const user = door.state.connector.data.users[0]!
      const connectorPost = (target: string, body: string, type: string, headers: Record<string, string> = {}) => door.send('POST', { target, headers: { 'content-type': type, ...headers } }, { body })
      const registered = await connectorPost('/oauth/register', JSON.stringify({ client_name: 'Safe methods', redirect_uris: ['http://127.0.0.1:33418/callback'] }), 'application/json')
      expect(registered?.status, registered?.body).toBe(201)
      const clientId = JSON.parse(registered!.body).client_id as string
      const signedIn = await connectorPost('/oauth/sign-in', new URLSearchParams({ email: user.email, password: user.password, next: 'connections' }).toString(), 'application/x-www-form-urlencoded')
      expect(signedIn?.status, signedIn?.body).toBe(303)
      const cookie = signedIn!.headers['set-cookie']!.toString().split(';')[0]!
      const { query } = exampleValues(connectorOps.find((o) => o.operationId === 'startConnectorAuthorization')!.operation)!
      const page = await door.send('GET', { target: `/oauth/authorize?${new URLSearchParams({ ...(query as Record<string, string>), client_id: clientId, resource: door.mcpUrl })}`, headers: {} })
      expect(page?.status, page?.body).toBe(200)
      const requestId = hiddenFields(page!.body).request_id!
      const shop = door.state.world.shops[0]!
      const keyed = { 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id, 'content-type': 'application/json', 'idempotency-key': KEY }
      const list = await door.send('POST', { target: '/lists/create', headers: keyed }, { body: JSON.stringify({ title: 'Safe methods', handles: [] }) })
      expect(list?.status, list?.body).toBeLessThan(300)
      const traceId = list!.headers['x-shoptwin-trace']!
      probes = probesOf(door, { clientId, cookie, requestId, traceId })
    })
    afterAll(async () => door?.close())

    it('every path of the contract (the API\'s and the connector\'s), the control API\'s and an unknown one: HEAD, OPTIONS, TRACE and PROPFIND change nothing, a GET nothing but what GET_EFFECTS lists; HEAD\'s head is GET\'s; every answer is the contract\'s', async () => {
      const problems: string[] = []
      let calls = 0
      for (const probe of probes) {
        const streaming = probe.target.endsWith('/events')
        const call = async (method: string): Promise<Answer | undefined> => {
          const before = await snapshot(door)
          const logged = door.ops.length
          let answer: Answer | undefined
          try {
            answer = await door.send(method, probe, { headOnly: streaming && method === 'GET' })
          } catch (error) {
            problems.push(`${method} ${probe.label}: ${(error as Error).message}`)
            return undefined
          }
          calls++
          const after = await snapshot(door)
          const changes = door.ops.slice(logged).map(opName)
          const allowed = method === 'GET' && probe.getOp ? GET_EFFECTS[probe.getOp.operationId]?.ops : undefined
          if (allowed) {
            const other = changes.filter((c) => !allowed.includes(c))
            if (other.length) problems.push(`${method} ${probe.label} changed the twin beyond ${allowed.join(', ')}: ${other.join(', ')}`)
          } else if (JSON.stringify(after) !== JSON.stringify(before)) {
            problems.push(`${method} ${probe.label} changed the twin: ${changes.join(', ') || `${JSON.stringify(before)} -> ${JSON.stringify(after)}`}`)
          }
          if (!answer) {
            problems.push(`${method} ${probe.label}: no handler answered`)
            return undefined
          }
          const problem = contractProblemOf(probe, method, answer)
          if (problem) problems.push(problem)
          return answer
        }
        // HEAD first: it answers as the GET that follows it would, from the same state.
        const head = await call('HEAD')
        const get = await call('GET')
        if (head && get) problems.push(...headProblems(probe, head, get))
        for (const method of OTHER_SAFE) if (door.name === 'server' || method !== 'TRACE') await call(method)
      }
      expect(problems).toEqual([])
      expect(calls).toBe(probes.length * (door.name === 'server' ? 5 : 4))
      // The sweep reached the GETs that do start something, and the HEADs before them.
      expect(door.ops.map(opName)).toEqual(expect.arrayContaining(['connector startAuthorization', 'write halo.startBuild']))
    })
  })
}

describe('safe methods: the instances one by one (RFC 9110 9.2.1, 9.3.2)', () => {
  it('connector: HEAD /oauth/authorize gets the sign-in page\'s head and keeps no authorization request; its GET keeps one', async () => {
    const door = await mswDoor()
    const registered = await door.send('POST', { target: '/oauth/register', headers: { 'content-type': 'application/json' } }, { body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:33418/callback'] }) })
    const { query } = exampleValues(connectorOps.find((o) => o.operationId === 'startConnectorAuthorization')!.operation)!
    const target = `/oauth/authorize?${new URLSearchParams({ ...(query as Record<string, string>), client_id: JSON.parse(registered!.body).client_id, resource: door.mcpUrl })}`
    const pending = () => Object.keys(door.state.connector.data.requests).length
    const head = await door.send('HEAD', { target, headers: {} })
    expect([head!.status, head!.headers['content-type'], head!.body, pending()]).toEqual([200, 'text/html; charset=utf-8', '', 0])
    expect((await door.send('GET', { target, headers: {} }))!.status).toBe(200)
    expect(pending()).toBe(1)
  })

  it('halo: HEAD of the report\'s GET form starts no build and fetches nothing; the GET after it starts the build (spec: States and transitions)', async () => {
    const door = await mswDoor()
    const shop = door.state.world.shops[0]!
    const headers = { 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id }
    const target = `/halo-effect?date_from=2026-01-08&date_to=2026-03-08`
    expect((await door.send('HEAD', { target, headers }))!.status).toBe(200)
    expect(door.ops.map(opName)).toEqual([])
    await door.send('GET', { target, headers })
    expect(door.ops.map(opName)).toEqual(expect.arrayContaining(['write halo.startBuild']))
  })

  it('server: a HEAD is in the request journal as a HEAD, with its GET\'s status', async () => {
    const door = await serverDoor()
    try {
      const shop = door.state.world.shops[0]!
      await door.send('HEAD', { target: '/shop/sps', headers: { 'x-api-key': 'demo-key', 'x-shop-id': shop.shop_id } })
      const entry = (await door.state.admin.requests({ limit: 1 })).at(-1)!
      expect([entry.method, entry.path, entry.status, entry.operationId]).toEqual(['HEAD', '/shop/sps', 200, 'getShopSps'])
    } finally {
      await door.close()
    }
  })
})
