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
 *   against the contract's MethodNotAllowed;
 * - links (stateful): every OpenAPI link of a success answer is followed (test/contract-fuzz/links.ts):
 *   a source request (a create) is sent, its answer and request fill the linked operation's
 *   parameters and body (get/update/delete with the returned id), the rest generated; the linked
 *   request, and one with a violation, get the checks above; a 404 for a value the answer just gave
 *   is a finding;
 * - MCP: a client registers, signs in and consents to every tool (OAuth 2.0 code + PKCE), then calls
 *   each tool (`tools/call` on /mcp) with arguments generated from its inputSchema: no 5xx, a JSON-RPC
 *   answer, `isError` exactly for a refusal, the tool's answer valid against its operation's response
 *   (and outputSchema where declared), valid arguments not refused with 400, invalid ones refused.
 *
 * Seeded: CONTRACT_FUZZ_SEED (printed), CONTRACT_FUZZ_RUNS requests of each kind per operation
 * (`npm run fuzz:contract` runs more), CONTRACT_FUZZ_LINK_RUNS sources per link (RUNS/6),
 * CONTRACT_FUZZ_TOOL_RUNS calls of each kind per tool (RUNS/3). A finding prints a curl line to replay it against
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
import { applyViolation, checkerOf, negativeArbitrary, positiveArbitrary, violationsOf, type FuzzOperation, type GeneratedRequest, type ParamSpec } from './generate.ts'
import { applyLink, contractLinks, type LinkSource } from './links.ts'
import { schemaArbitrary } from '../support/fuzz.ts'
import { connectorTools } from '../../mock/connector/tools.ts'
import { connectorAccessToken, tokenCommand } from './mcp-token.ts'

const SEED = Number(process.env.CONTRACT_FUZZ_SEED ?? 20261124)
/** Requests of each kind (positive, negative) per operation. */
const RUNS = Number(process.env.CONTRACT_FUZZ_RUNS ?? 6)
/** Source requests per link of the stateful phase (CONTRACT_FUZZ_LINK_RUNS). */
const LINK_RUNS = Number(process.env.CONTRACT_FUZZ_LINK_RUNS ?? Math.max(1, Math.round(RUNS / 6)))
/** Positive and negative calls per MCP tool (CONTRACT_FUZZ_TOOL_RUNS). */
const TOOL_RUNS = Number(process.env.CONTRACT_FUZZ_TOOL_RUNS ?? Math.max(1, Math.round(RUNS / 3)))
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
  check: 'no-5xx' | FindingKind | 'negative-not-4xx' | 'negative-error-body' | 'methods' | 'links' | 'mcp'
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
  /** Sends one generated request, checks its answer, and returns what was sent and answered. */
  async function exercise(op: FuzzOperation, generated: GeneratedRequest, judge: (answer: Answer) => string | undefined, api: boolean, { key = idempotencyCounter % 2 === 0 }: { key?: boolean } = {}): Promise<{ answer: Answer; headers: Record<string, string> }> {
    const headers: Record<string, string> = { ...(api ? API_HEADERS : {}), ...generated.headers }
    if (api && contract.byId.get(op.operationId)!.idempotent && key) headers['idempotency-key'] = `contract-fuzz-${SEED}-${idempotencyCounter}`
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
    return { answer, headers }
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

  const parseJson = (text: string | undefined): unknown => {
    try {
      return text === undefined || text === '' ? undefined : JSON.parse(text)
    } catch {
      return undefined
    }
  }
  const links = contractLinks(contract.doc)

  it(`links: a source's answer feeds the operations its links name, checked as any request (${links.length} links)`, { timeout: 600_000 }, async () => {
    const start = findings.length
    const byId = new Map(every.map(([id, op, api]) => [id, { op, api }]))
    const options = { today: TODAY, hints, awkward: AWKWARD }
    const counts = { links: links.length, sources: 0, sourceRefused: 0, followed: 0, followed2xx: 0, unresolved: 0, negatives: 0 }
    for (const [index, link] of links.entries()) {
      const source = byId.get(link.source)
      const target = byId.get(link.operationId)
      expect(source && target, `${link.source} -> ${link.operationId}`).toBeTruthy()
      const sourceChecker = checkerOf(contract, source!.op)
      const targetChecker = checkerOf(contract, target!.op)
      const sources = fc.sample(positiveArbitrary(contract, source!.op, options), { seed: SEED + 200_000 + index, numRuns: LINK_RUNS * 16 }).filter((r) => !sourceChecker.problem(r)).slice(0, LINK_RUNS)
      const targets = fc.sample(positiveArbitrary(contract, target!.op, options), { seed: SEED + 300_000 + index, numRuns: 24 })
      const negatives = fc.sample(negativeArbitrary(contract, target!.op, options), { seed: SEED + 400_000 + index, numRuns: 24 }).filter((r) => r !== undefined)
      // A value the link takes from the answer (an id just created) or from a request header must be found by the target.
      const fromAnswer = /\$response\.|\$request\.header\./.test(JSON.stringify([link.parameters, link.requestBody]))
      for (const generated of sources) {
        counts.sources++
        const { answer, headers } = await exercise(source!.op, generated, judgePositive(source!.op), source!.api, { key: true })
        if (answer.status >= 300) {
          counts.sourceRefused++
          continue
        }
        const from: LinkSource = { requestHeaders: headers, requestBody: parseJson(generated.body), requestQuery: new URLSearchParams(generated.query), responseHeaders: answer.headers, responseBody: parseJson(answer.text) }
        const positive = targets.map((t) => applyLink(link, from, t, target!.op.path, target!.op.body?.mediaType)).find((l) => l && !targetChecker.problem(l.request))
        if (!positive) counts.unresolved++
        else {
          counts.followed++
          const linked = await exercise(target!.op, positive.request, judgePositive(target!.op), target!.api)
          if (linked.answer.status < 300) counts.followed2xx++
          const named = positive.filled.filter((v): v is string => typeof v === 'string' && v.length >= 4)
          if (fromAnswer && linked.answer.status === 404 && named.some((v) => linked.answer.text.includes(v))) {
            findings.push({ check: 'links', operationId: link.operationId, detail: `link ${link.source}.${link.name}: the value the answer gave is not found: 404 ${linked.answer.text.slice(0, 160)}`, curl: curlOf(target!.op.method, `${positive.request.path}${positive.request.query ? `?${positive.request.query}` : ''}`, { ...(target!.api ? API_HEADERS : {}), ...positive.request.headers }, positive.request.body) })
          }
        }
        const negative = negatives.map((n) => applyLink(link, from, n!, target!.op.path, target!.op.body?.mediaType)).find((l) => l && targetChecker.problem(l.request) !== undefined)
        if (negative) {
          counts.negatives++
          await exercise(target!.op, negative.request, judgeNegative(target!.op, negative.request.violation!, target!.api), target!.api)
        }
      }
    }
    console.log(`contract fuzz links: ${JSON.stringify(counts)} (CONTRACT_FUZZ_LINK_RUNS=${LINK_RUNS})`)
    expect(counts.followed2xx).toBeGreaterThan(links.length / 4)
    const report = findings.slice(start).map((f) => `[${f.check}] ${f.operationId}: ${f.detail}\n    ${f.curl}`)
    expect([...new Set(report)]).toEqual([])
  })

  it('MCP: tools/call with a token from the OAuth flow, arguments generated from each tool\'s inputSchema', { timeout: 600_000 }, async () => {
    const start = findings.length
    // The OAuth flow as a client makes it (test/contract-fuzz/mcp-token.ts; the same from the shell for the curl lines).
    const user = state.connector.data.users.find((u) => u.account_id === shop.account_id)!
    const tools = connectorTools(contract)
    const access_token = await connectorAccessToken(base, user)
    const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${access_token}` }
    let rpcId = 0
    const rpc = async (method: string, params: unknown) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params })
      const answer = await send('POST', '/mcp', mcpHeaders, body)
      sent++
      return { answer, body, curl: curlOf('POST', '/mcp', { ...mcpHeaders, authorization: 'Bearer TOKEN' }, body).replace("'authorization: Bearer TOKEN'", `"authorization: Bearer ${tokenCommand(user.email)}"`) }
    }
    const listed = await rpc('tools/list', {})
    const declared = ((parseJson(listed.answer.text) as { result?: { tools?: Array<{ name: string; inputSchema: JsonSchema; outputSchema?: JsonSchema }> } })?.result?.tools ?? [])
    expect(declared.map((t) => t.name).sort()).toEqual(tools.map((t) => t.name).sort())
    const options = { today: TODAY, hints: { ...hints, shop_id: [shop.shop_id] }, awkward: AWKWARD }
    const counts: Record<string, number> = {}
    for (const [index, tool] of declared.entries()) {
      const op = contract.byId.get(tool.name)!
      // The tool's schema is self-contained ($defs = the contract's components): read with the contract's refs.
      const schema = JSON.parse(JSON.stringify(tool.inputSchema).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema
      delete schema.$defs
      const validate = contract.validators.compile(`fuzz:tool:${tool.name}:input`, schema)
      const output = tool.outputSchema ? contract.validators.compile(`fuzz:tool:${tool.name}:output`, JSON.parse(JSON.stringify(tool.outputSchema).replaceAll('"#/$defs/', '"#/components/schemas/'))) : undefined
      const values = fc.sample(schemaArbitrary(contract, schema, options), { seed: SEED + 500_000 + index, numRuns: TOOL_RUNS * 12 }) as Array<Record<string, unknown>>
      const positives = values.filter((v) => validate(v)).slice(0, TOOL_RUNS)
      const negatives = values
        .flatMap((v, i) => {
          const candidates = violationsOf(contract, schema, v).filter((c) => c.path.length > 0)
          return candidates.length ? [applyViolation(v, candidates[(i * 7919) % candidates.length]!) as Record<string, unknown>] : []
        })
        .filter((v) => !validate(v))
        .slice(0, TOOL_RUNS)
      for (const [kind, args] of [...positives.map((a) => ['positive', a] as const), ...negatives.map((a) => ['negative', a] as const)]) {
        const { answer, curl } = await rpc('tools/call', { name: tool.name, arguments: args })
        const add = (check: Finding['check'], detail: string) => findings.push({ check, operationId: `mcp ${tool.name}`, detail, curl })
        const message = parseJson(answer.text) as { jsonrpc?: string; result?: { isError?: boolean; structuredContent?: unknown; content?: Array<{ text?: string }>; _meta?: Record<string, unknown> }; error?: { code?: number; message?: string } } | undefined
        if (answer.status >= 500) add('no-5xx', `HTTP ${answer.status} ${answer.text.slice(0, 200)}`)
        if (message?.jsonrpc !== '2.0' || (message.result === undefined) === (message.error === undefined)) {
          add('mcp', `not a JSON-RPC answer: HTTP ${answer.status} ${answer.text.slice(0, 200)}`)
          continue
        }
        if (message.error) {
          if (typeof message.error.code !== 'number' || typeof message.error.message !== 'string') add('mcp', `a JSON-RPC error without code and message: ${answer.text.slice(0, 200)}`)
          if (kind === 'positive') add('mcp', `arguments valid by the inputSchema refused by JSON-RPC: ${answer.text.slice(0, 200)}`)
          counts[`${kind} rpc-error`] = (counts[`${kind} rpc-error`] ?? 0) + 1
          continue
        }
        const status = Number(message.result!._meta?.['shoptwin/status'])
        counts[`${kind} ${status}`] = (counts[`${kind} ${status}`] ?? 0) + 1
        const text = message.result!.content?.[0]?.text ?? ''
        if (status >= 500) add('no-5xx', `tool answered ${status}: ${text.slice(0, 200)}`)
        if (Boolean(message.result!.isError) !== status >= 400) add('mcp', `isError ${message.result!.isError} with status ${status}`)
        const problem = contractProblem(contract, op, status, text)
        if (problem && !exclusionFor('schema', op.operationId, text)) add('schema', problem)
        if (output && !message.result!.isError && !output(message.result!.structuredContent)) add('schema', `structuredContent does not match the outputSchema: ${JSON.stringify(output.errors?.[0])}`)
        if (kind === 'positive' && status === 400 && !exclusionFor('positive-400', op.operationId, text)) add('positive-400', `arguments valid by the inputSchema refused: 400 ${text.slice(0, 200)}`)
        if (kind === 'negative' && !message.result!.isError) add('negative-accepted', `arguments the inputSchema forbids answered ${status}: ${text.slice(0, 160)}`)
      }
    }
    console.log(`contract fuzz MCP: ${declared.length} tools, outcomes ${JSON.stringify(Object.fromEntries(Object.entries(counts).sort()))} (CONTRACT_FUZZ_TOOL_RUNS=${TOOL_RUNS})`)
    const report = findings.slice(start).map((f) => `[${f.check}] ${f.operationId}: ${f.detail}\n    ${f.curl}`)
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
