/**
 * The generative contract check (issue 24, item 3): the checks of a third-party API fuzzer, made
 * here. For every operation of the contract, the API's and the connector's (OAuth, MCP, discovery),
 * requests are generated from the contract alone (test/contract-fuzz/generate.ts) and sent to a real
 * server on 127.0.0.1 (rate limit off, as the fuzzer ran it):
 *
 * - positive: a request valid by the contract gets a success, or a 4xx the contract documents for the
 *   operation; a 400 needs a rule the spec states in words (exclusions.ts), else the twin is stricter
 *   than its contract;
 * - negative: a request with one violation the contract forbids gets a 4xx (`{error}` on the API),
 *   never a success;
 * - no 5xx on anything;
 * - schema: every answer is documented for its operation and validates against its declared response;
 * - methods: each path with a method it does not document gets 405, Allow and an `{error}` valid
 *   against the contract's MethodNotAllowed.
 *
 * Seeded: CONTRACT_FUZZ_SEED (printed), CONTRACT_FUZZ_RUNS requests of each kind per operation
 * (`npm run fuzz:contract` runs more). A finding prints a curl line to replay it against
 * `npm start -- --rate-limit off` (the world of the same seed and --today).
 */
import { request as httpRequest, Agent } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { indexConnectorOperations, responseKeyOf, type ConnectorOperationInfo, type JsonSchema, type OperationInfo } from '../../openapi/index.ts'
import { createMockState, createServer, type MockServer } from '../../mock/index.ts'
import { contractProblem } from '../../mock/testing.ts'
import { shopIds } from '../support/world-ids.ts'
import { exclusionFor, type FindingKind } from './exclusions.ts'
import { checkerOf, negativeArbitrary, positiveArbitrary, type FuzzOperation, type GeneratedRequest, type ParamSpec } from './generate.ts'

const SEED = Number(process.env.CONTRACT_FUZZ_SEED ?? 20261124)
/** Requests of each kind (positive, negative) per operation. */
const RUNS = Number(process.env.CONTRACT_FUZZ_RUNS ?? 6)
const WORLD_SEED = 42
const TODAY = '2026-03-10'
const NOW = `${TODAY}T12:00:00.000Z`
const state = createMockState({ seed: WORLD_SEED, now: NOW, rateLimit: false })
const { contract } = state
const shop = state.world.shops.find((s) => s.plan === 'scale' && s.is_active)!
/** The fuzzer's configured credentials: the Enterprise demo key on an active Scale shop (every gate open). */
const API_HEADERS = { 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id }
/** Keys every plain object answers to: a record looked up by a key the request names must not find them. */
const AWKWARD = ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf']
const hints = Object.fromEntries([...shopIds(state.world.shopData[shop.shop_id])].map(([field, ids]) => [field, [...ids].slice(0, 20)]))

// ---------------------------------------------------------------------------------------------
// The operations, as the generator sees them

const apiOperation = (op: OperationInfo): FuzzOperation => ({
  operationId: op.operationId,
  method: op.method,
  path: op.path,
  params: [...op.query.map((p) => ({ ...p, in: 'query' as const })), ...op.pathParams.map((p) => ({ ...p, in: 'path' as const, required: true }))],
  ...(op.requestSchema ? { body: { mediaType: 'application/json', schema: op.requestSchema, required: Boolean((op.operation.requestBody as { required?: boolean }).required) } } : {}),
})

function connectorOperation(op: ConnectorOperationInfo): FuzzOperation {
  const params = ((op.operation.parameters ?? []) as Array<Record<string, unknown>>).filter((p) => p.in === 'query' || p.in === 'path').map((p): ParamSpec => ({ name: p.name as string, in: p.in as 'query' | 'path', required: Boolean(p.required), schema: p.schema as JsonSchema }))
  const requestBody = op.operation.requestBody as { required?: boolean; content: Record<string, { schema: JsonSchema }> } | undefined
  const [mediaType, media] = requestBody ? Object.entries(requestBody.content)[0]! : []
  return { operationId: op.operationId, method: op.method, path: op.path, params, ...(mediaType ? { body: { mediaType, schema: media!.schema, required: Boolean(requestBody!.required) } } : {}) }
}

const apiOps = contract.operations
const connectorOps = indexConnectorOperations(contract.doc)

// ---------------------------------------------------------------------------------------------
// Checks of one answer

interface Answer {
  status: number
  headers: Headers
  text: string
}

/** What is wrong with an answer against the connector operation's documented responses (media type, JSON schema, body presence). */
function connectorProblem(op: ConnectorOperationInfo, answer: Answer): string | undefined {
  const key = responseKeyOf(op, answer.status)
  if (!key) return `${op.operationId}: status ${answer.status} is not documented (documented: ${Object.keys(op.operation.responses).join(', ')})`
  let response = op.operation.responses[key] as Record<string, unknown>
  if (typeof response.$ref === 'string') response = contract.doc.components.responses[(response.$ref as string).split('/').pop()!] as Record<string, unknown>
  const content = response.content as Record<string, unknown> | undefined
  if (!content) return answer.text.length && answer.status !== 302 && answer.status !== 303 ? `${op.operationId}: ${answer.status} has a body where none is documented` : undefined
  const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim()
  if (!(mediaType in content)) return `${op.operationId}: ${answer.status} is ${mediaType || 'untyped'}, documented ${Object.keys(content).join(', ')}`
  if (mediaType !== 'application/json') return undefined
  const validate = contract.validators.response(op, answer.status, mediaType)
  try {
    return !validate || validate(JSON.parse(answer.text)) ? undefined : `${op.operationId}: ${answer.status} body does not match the contract: ${JSON.stringify(validate.errors?.[0])}`
  } catch {
    return `${op.operationId}: ${answer.status} body is not JSON`
  }
}

const isErrorBody = (text: string): boolean => {
  try {
    const body = JSON.parse(text) as Record<string, unknown>
    return typeof body?.error === 'string' && body.error.length > 0
  } catch {
    return false
  }
}

// ---------------------------------------------------------------------------------------------
// Findings

interface Finding {
  check: 'no-5xx' | FindingKind | 'negative-not-4xx' | 'negative-error-body' | 'methods'
  operationId: string
  detail: string
  curl: string
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
const curlOf = (method: string, path: string, headers: Record<string, string>, body?: string) =>
  ['curl -sS -i', `-X ${method}`, shellQuote(`http://127.0.0.1:4010${path}`), ...Object.entries(headers).map(([k, v]) => `-H ${shellQuote(`${k}: ${v}`)}`), ...(body !== undefined ? [`--data-raw ${shellQuote(body)}`] : [])].join(' ')

const findings: Finding[] = []
const statusCounts = new Map<string, number>()
let sent = 0

console.log(`contract fuzz: seed ${SEED} (CONTRACT_FUZZ_SEED), ${RUNS} positive and ${RUNS} negative requests per operation (CONTRACT_FUZZ_RUNS), ${apiOps.length} API and ${connectorOps.length} connector operations; curl lines replay against \`npm start -- --rate-limit off --seed ${WORLD_SEED} --today ${TODAY}\``)

describe('contract fuzz: requests generated from the contract alone (issue 24, item 3)', () => {
  let mock: MockServer
  let base: string
  const agent = new Agent({ keepAlive: true, maxSockets: 4 })
  beforeAll(async () => {
    mock = createServer({ state, log: () => {} })
    base = await mock.listen(0, '127.0.0.1')
    await state.admin.run('dashboards/open', { shop_id: shop.shop_id })
  })
  afterAll(async () => {
    agent.destroy()
    await mock.close()
    const grouped = new Map<string, Finding>()
    for (const f of findings) grouped.set(`${f.check} ${f.operationId} ${f.detail.slice(0, 120)}`, f)
    console.log(`contract fuzz: ${sent} requests; statuses ${JSON.stringify(Object.fromEntries([...statusCounts].sort()))}; ${findings.length} findings (${grouped.size} distinct)`)
    for (const f of grouped.values()) console.log(`  [${f.check}] ${f.operationId}: ${f.detail}\n    ${f.curl}`)
  })

  /** One request over HTTP (node:http: any method, the body framed by its length). */
  const send = (method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const framed = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) }
      const url = new URL(base)
      const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers: framed, agent }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const h = new Headers()
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v)
          resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString('utf8') })
        })
      })
      req.on('error', reject)
      req.end(body)
    })

  let idempotencyCounter = 0
  async function exercise(op: FuzzOperation, generated: GeneratedRequest, judge: (answer: Answer) => string | undefined, api: boolean) {
    const headers: Record<string, string> = { ...(api ? API_HEADERS : {}), ...generated.headers }
    if (api && contract.byId.get(op.operationId)!.idempotent && idempotencyCounter % 2 === 0) headers['idempotency-key'] = `contract-fuzz-${SEED}-${idempotencyCounter}`
    idempotencyCounter++
    if (op.path === '/mcp') headers.accept = 'application/json, text/event-stream'
    const path = `${generated.path}${generated.query ? `?${generated.query}` : ''}`
    const answer = await send(op.method, path, headers, generated.body)
    sent++
    const statusKey = `${generated.kind} ${answer.status}`
    statusCounts.set(statusKey, (statusCounts.get(statusKey) ?? 0) + 1)
    const curl = curlOf(op.method, path, headers, generated.body)
    const add = (check: Finding['check'], detail: string) => findings.push({ check, operationId: op.operationId, detail, curl })
    if (answer.status >= 500) add('no-5xx', `${answer.status} ${answer.text.slice(0, 200)}`)
    const schemaProblem = api ? contractProblem(contract, contract.byId.get(op.operationId)!, answer.status, answer.text) : connectorProblem(connectorOps.find((c) => c.operationId === op.operationId)!, answer)
    if (schemaProblem && !exclusionFor('schema', op.operationId, answer.text)) add('schema', schemaProblem)
    const verdict = judge(answer)
    if (verdict) add(verdict.split(':')[0] as Finding['check'], verdict.slice(verdict.indexOf(':') + 2))
  }

  /** Positive: a success, or a refusal the contract documents; a 400 only for a rule the spec states in words (exclusions.ts). */
  const judgePositive = (op: FuzzOperation) => (answer: Answer): string | undefined => {
    if (answer.status < 400 || answer.status >= 500) return undefined
    if (answer.status === 400) return exclusionFor('positive-400', op.operationId, answer.text) ? undefined : `positive-400: a request valid by the contract refused: 400 ${answer.text.slice(0, 200)}`
    return undefined // any other 4xx: documented or not is the schema check's finding
  }

  /** Negative: a 4xx (the API's with `{error}`), never a success. */
  const judgeNegative = (op: FuzzOperation, violation: string, api: boolean) => (answer: Answer): string | undefined => {
    if (answer.status < 400) return exclusionFor('negative-accepted', op.operationId, answer.text, violation) ? undefined : `negative-accepted: ${violation}: answered ${answer.status} ${answer.text.slice(0, 160)}`
    if (answer.status >= 500) return undefined
    if (api && !isErrorBody(answer.text)) return `negative-error-body: ${violation}: ${answer.status} is not {error}: ${answer.text.slice(0, 160)}`
    return undefined
  }

  const every: Array<[string, FuzzOperation, boolean]> = [...apiOps.map((op) => [op.operationId, apiOperation(op), true] as [string, FuzzOperation, boolean]), ...connectorOps.map((op) => [op.operationId, connectorOperation(op), false] as [string, FuzzOperation, boolean])]

  it(`positive and negative requests for every operation (${every.length}): no 5xx, every answer as declared, valid requests accepted, invalid ones refused`, { timeout: 600_000 }, async () => {
    for (const [index, [, op, api]] of every.entries()) {
      const checker = checkerOf(contract, op)
      const options = { today: TODAY, hints, awkward: AWKWARD }
      // Up to 8 candidates per kept request: the value generator does not model every `anyOf`; ajv keeps the valid ones.
      const positives = fc.sample(positiveArbitrary(contract, op, options), { seed: SEED + index, numRuns: RUNS * 8 }).filter((r) => !checker.problem({ query: r.query, pathValues: r.pathValues, body: r.body })).slice(0, RUNS)
      const negatives = fc.sample(negativeArbitrary(contract, op, options), { seed: SEED + 100_000 + index, numRuns: RUNS * 8 }).filter((r) => r !== undefined && checker.problem({ query: r.query, pathValues: r.pathValues, body: r.body }) !== undefined).slice(0, RUNS)
      for (const r of positives) await exercise(op, r, judgePositive(op), api)
      for (const r of negatives) await exercise(op, r!, judgeNegative(op, r!.violation!, api), api)
    }
    const report = findings.map((f) => `[${f.check}] ${f.operationId}: ${f.detail}\n    ${f.curl}`)
    expect([...new Set(report)]).toEqual([])
  })

  it('methods: every path of the contract with a method it does not document: 405, Allow, {error} valid against MethodNotAllowed', async () => {
    const declared = contract.doc as unknown as { 'x-undocumented-methods': { response: { $ref: string } }; components: { responses: Record<string, any> } }
    const response = declared.components.responses[declared['x-undocumented-methods'].response.$ref.split('/').pop()!]
    const validate = contract.validators.compile('fuzz:MethodNotAllowed', response.content['application/json'].schema)
    const byPath = new Map<string, Set<string>>()
    for (const op of [...apiOps, ...connectorOps]) byPath.set(op.path, (byPath.get(op.path) ?? new Set()).add(op.method))
    const methods = fc.sample(fc.constantFrom('PUT', 'PATCH', 'TRACE', 'PROPFIND', 'DELETE', 'POST', 'GET'), { seed: SEED, numRuns: byPath.size * 3 })
    const problems: string[] = []
    let i = 0
    for (const [template, documented] of byPath) {
      const method = methods.slice(i, (i += 3)).find((m) => !documented.has(m) && !(m === 'GET' && template === '/mcp'))
      if (!method) continue
      const path = template.replace(/\{[^}]+\}/g, 'fuzz-key')
      const answer = await send(method, path, API_HEADERS)
      sent++
      const connector = connectorOps.some((o) => o.path === template)
      // The API's {error}, valid against MethodNotAllowed; the connector's OAuth error, or JSON-RPC's on /mcp.
      const ok = answer.status === 405 && !!answer.headers.get('allow') && (connector ? isErrorBody(answer.text) || typeof JSON.parse(answer.text)?.error?.message === 'string' : validate(JSON.parse(answer.text)))
      if (!ok) problems.push(`${method} ${path}: ${answer.status} allow=${answer.headers.get('allow')} ${answer.text.slice(0, 160)}\n    ${curlOf(method, path, API_HEADERS)}`)
    }
    expect(problems).toEqual([])
  })
})
