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
 * - ignored auth (Schemathesis's ignored_auth): every operation whose contract declares security gets
 *   valid requests of the positive generator again without its credentials and with ones nobody has
 *   (random and near misses): the API without x-api-key or with an unknown key (401, inferred: the spec
 *   shows neither status nor words), without x-shop-id (400 `Missing X-Shop-Id header`), with a
 *   malformed one (400 `Invalid shop_id`), with another account's shop or an id nobody has (403; the
 *   ads endpoints' `Shop not found or not owned by user`), with a key whose routes, shops or tier do not
 *   grant the call (403); the connector's /mcp without a bearer token, with an unknown or a revoked one
 *   (401 and the contract's WWW-Authenticate challenge), its session pages without the session cookie or
 *   with an unknown one (403 for a real pending consent and a real connection). Never 2xx/3xx, the
 *   spec's words where it gives them, every answer valid against the declared responses;
 * - use after free (use_after_free and ensure_resource_availability): each resource the contract's
 *   links let a client create and delete (a 201 create linked to a DELETE) is created; its get by the id
 *   the create answered succeeds; it is deleted; then every operation the create's links address it
 *   with (get, update, delete again...) gets the contract's not-found refusal (its NotFound response,
 *   404), never a success; the delete replayed with its own Idempotency-Key gets its original answer
 *   byte for byte (spec: Idempotency; exclusions.ts);
 * - MCP: a client registers, signs in and consents to every tool (OAuth 2.0 code + PKCE), then calls
 *   each tool (`tools/call` on /mcp) with arguments generated from its inputSchema: no 5xx, a JSON-RPC
 *   answer, `isError` exactly for a refusal, the tool's answer valid against its operation's response
 *   (and outputSchema where declared), valid arguments not refused with 400, invalid ones refused.
 *
 * Seeded: CONTRACT_FUZZ_SEED (printed), CONTRACT_FUZZ_RUNS requests of each kind per operation
 * (`npm run fuzz:contract` runs more), CONTRACT_FUZZ_LINK_RUNS sources per link (RUNS/6),
 * CONTRACT_FUZZ_TOOL_RUNS calls of each kind per tool (RUNS/3), CONTRACT_FUZZ_AUTH_RUNS valid requests per
 * secured operation sent without valid credentials (RUNS/3), CONTRACT_FUZZ_DELETE_RUNS resources
 * created and deleted per create (RUNS/3). A finding prints a curl line to replay it against
 * `npm start -- --rate-limit off` (the world of the same seed and --today).
 */
import { request as httpRequest, Agent } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { indexConnectorOperations, responseKeyOf, type ConnectorOperationInfo, type JsonSchema, type OperationInfo } from '../../openapi/index.ts'
import { createMockState, createServer, type MockServer } from '../../mock/index.ts'
import { contractProblem, exampleFromSchema } from '../../mock/testing.ts'
import { shopIds } from '../support/world-ids.ts'
import { exclusionFor, type FindingKind } from './exclusions.ts'
import { applyViolation, checkerOf, negativeArbitrary, positiveArbitrary, violationsOf, type FuzzOperation, type GeneratedRequest, type OperationChecker, type ParamSpec } from './generate.ts'
import { applyLink, contractLinks, deletableResources, type ContractLink, type LinkSource } from './links.ts'
import { schemaArbitrary } from '../support/fuzz.ts'
import { connectorTools } from '../../mock/connector/tools.ts'
import { connectorAccessToken, tokenCommand } from './mcp-token.ts'
import { checkboxValues, createBrowser, hiddenFields, pkcePair } from '../connector-helpers.ts'

const SEED = Number(process.env.CONTRACT_FUZZ_SEED ?? 20261124)
/** Requests of each kind (positive, negative) per operation. */
const RUNS = Number(process.env.CONTRACT_FUZZ_RUNS ?? 6)
/** Source requests per link of the stateful phase (CONTRACT_FUZZ_LINK_RUNS). */
const LINK_RUNS = Number(process.env.CONTRACT_FUZZ_LINK_RUNS ?? Math.max(1, Math.round(RUNS / 6)))
/** Positive and negative calls per MCP tool (CONTRACT_FUZZ_TOOL_RUNS). */
const TOOL_RUNS = Number(process.env.CONTRACT_FUZZ_TOOL_RUNS ?? Math.max(1, Math.round(RUNS / 3)))
/** Valid requests per secured operation sent again without, or with unknown, credentials (CONTRACT_FUZZ_AUTH_RUNS). */
const AUTH_RUNS = Number(process.env.CONTRACT_FUZZ_AUTH_RUNS ?? Math.max(1, Math.round(RUNS / 3)))
/** Resources created and deleted per deletable resource (CONTRACT_FUZZ_DELETE_RUNS). */
const DELETE_RUNS = Number(process.env.CONTRACT_FUZZ_DELETE_RUNS ?? Math.max(1, Math.round(RUNS / 3)))
/**
 * A test's time limit, grown with the runs it makes: 600 s, or `msPerRun` a run past that. Measured at
 * CONTRACT_FUZZ_RUNS=300 on a shared 2-core machine (seed 1930): the requests of every operation 63 s (210 ms a run),
 * links 16 s (330 ms a link run), MCP tools 35 s (350 ms), ignored auth 30 s (300 ms), use after free 6 s (60 ms);
 * the limits allow about 4 times that, so a run widened tenfold fails on what it finds, not on the clock.
 */
const timeoutFor = (runs: number, msPerRun: number) => Math.max(600_000, runs * msPerRun)
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

/** The response headers the contract declares required for this status that the answer lacks. */
function missingHeaders(operation: Record<string, unknown>, status: number, headers: Headers): string[] {
  const responses = operation.responses as Record<string, Record<string, unknown>>
  let response = responses[String(status)] ?? responses[`${Math.floor(status / 100)}XX`]
  if (typeof response?.$ref === 'string') response = contract.doc.components.responses[(response.$ref as string).split('/').pop()!] as Record<string, unknown>
  return Object.entries((response?.headers ?? {}) as Record<string, { required?: boolean }>).filter(([name, header]) => header.required && !headers.has(name)).map(([name]) => name)
}

/** The `error` of an `{error}` body, if it is one. */
const errorOf = (text: string): unknown => {
  try {
    return (JSON.parse(text) as { error?: unknown })?.error
  } catch {
    return undefined
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
  check: 'no-5xx' | FindingKind | 'negative-not-4xx' | 'negative-error-body' | 'methods' | 'links' | 'mcp' | 'ignored-auth' | 'resource-availability'
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

  /** Sends a generated request with exactly these headers (no credentials added); counted, with its curl line. */
  async function deliver(op: FuzzOperation, generated: GeneratedRequest, headers: Record<string, string>, label: string = generated.kind): Promise<{ answer: Answer; curl: string }> {
    const path = `${generated.path}${generated.query ? `?${generated.query}` : ''}`
    const answer = await send(op.method, path, headers, generated.body)
    sent++
    const statusKey = `${label} ${answer.status}`
    statusCounts.set(statusKey, (statusCounts.get(statusKey) ?? 0) + 1)
    return { answer, curl: curlOf(op.method, path, headers, generated.body) }
  }

  let idempotencyCounter = 0
  /** Sends one generated request, checks its answer, and returns what was sent and answered. */
  async function exercise(op: FuzzOperation, generated: GeneratedRequest, judge: (answer: Answer) => string | undefined, api: boolean, { key = idempotencyCounter % 2 === 0, label }: { key?: boolean; label?: string } = {}): Promise<{ answer: Answer; headers: Record<string, string> }> {
    const headers: Record<string, string> = { ...(api ? API_HEADERS : {}), ...generated.headers }
    if (api && contract.byId.get(op.operationId)!.idempotent && key) headers['idempotency-key'] = `contract-fuzz-${SEED}-${idempotencyCounter}`
    idempotencyCounter++
    if (op.path === '/mcp') headers.accept = 'application/json, text/event-stream'
    const { answer, curl } = await deliver(op, generated, headers, label)
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

  it(`positive and negative requests for every operation (${every.length}): no 5xx, every answer as declared, valid requests accepted, invalid ones refused`, { timeout: timeoutFor(RUNS, 1_000) }, async () => {
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

  it(`links: a source's answer feeds the operations its links name, checked as any request (${links.length} links)`, { timeout: timeoutFor(LINK_RUNS, 1_500) }, async () => {
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

  it('MCP: tools/call with a token from the OAuth flow, arguments generated from each tool\'s inputSchema', { timeout: timeoutFor(TOOL_RUNS, 1_500) }, async () => {
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

  it('MCP transport: generated bodies (one message, a batch, other JSON) under generated protocol versions: every answer as /mcp declares; a batch only under 2025-03-26, nothing of a refused one run', { timeout: timeoutFor(RUNS * 5, 50) }, async () => {
    const start = findings.length
    const user = state.connector.data.users.find((u) => u.account_id === shop.account_id)!
    const access_token = await connectorAccessToken(base, user)
    const mcpOp = connectorOps.find((o) => o.operationId === 'callConnectorMcp')!
    // What the SDK supports (its SUPPORTED_PROTOCOL_VERSIONS), what MCP has published, and what it has not.
    const supported = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']
    const version = fc.option(fc.oneof(fc.constantFrom(...supported, '2026-07-28', 'draft', '2025-06-18, 2025-03-26'), fc.stringMatching(/^[0-9a-z-]{1,12}$/)), { nil: undefined })
    const message = fc.oneof(
      fc.constant({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'listAccountShops', arguments: {} } }),
      fc.constant({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'getShopSps', arguments: { shop_id: shop.shop_id } } }),
      fc.constant({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'invalid_tool_name', arguments: {} } }),
      fc.constant({ jsonrpc: '2.0', method: 'ping' }),
      fc.constant({ jsonrpc: '2.0', method: 'tools/list' }),
      fc.constant({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      fc.constant({ jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } }),
      fc.jsonValue({ maxDepth: 2 }),
    )
    let id = 0
    const withId = (m: unknown) => (m && typeof m === 'object' && !Array.isArray(m) && 'method' in m && !String((m as { method: string }).method).startsWith('notifications/') ? { ...m, id: ++id } : m)
    const body = fc.oneof(message.map(withId), fc.array(message.map(withId), { maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }))
    const cases = fc.sample(fc.record({ version, body }), { seed: SEED + 700_000, numRuns: RUNS * 5 })
    const outcomes: Record<string, number> = {}
    for (const c of cases) {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${access_token}`, ...(c.version === undefined ? {} : { 'mcp-protocol-version': c.version }) }
      const text = JSON.stringify(c.body)
      const before = (await state.activity.entries()).length
      const answer = await send('POST', '/mcp', headers, text)
      sent++
      const ran = (await state.activity.entries()).length - before
      const curl = curlOf('POST', '/mcp', { ...headers, authorization: 'Bearer TOKEN' }, text).replace("'authorization: Bearer TOKEN'", `"authorization: Bearer ${tokenCommand(user.email)}"`)
      const add = (check: Finding['check'], detail: string) => findings.push({ check, operationId: 'callConnectorMcp', detail, curl })
      const code = (parseJson(answer.text) as { error?: { code?: number } } | undefined)?.error?.code
      outcomes[`${answer.status}${code === undefined ? '' : ` ${code}`}`] = (outcomes[`${answer.status}${code === undefined ? '' : ` ${code}`}`] ?? 0) + 1
      if (answer.status >= 500) add('no-5xx', `${answer.status} ${answer.text.slice(0, 200)}`)
      const problem = connectorProblem(mcpOp, answer)
      if (problem) add('schema', problem)
      // The versions' rules (Streamable HTTP 2025-06-18; changelog 2025-06-18; lifecycle 2025-03-26).
      const unsupported = c.version !== undefined && !supported.includes(c.version)
      const batch = Array.isArray(c.body)
      const initializeInBatch = batch && (c.body as unknown[]).some((m) => (m as { method?: unknown } | null)?.method === 'initialize')
      const refusedBatch = batch && (initializeInBatch || (!unsupported && ((c.version ?? '2025-03-26') !== '2025-03-26' || (c.body as unknown[]).length === 0)))
      if (unsupported && !initializeInBatch && answer.status !== 400) add('mcp', `MCP-Protocol-Version ${JSON.stringify(c.version)} is not supported, answered ${answer.status}: ${answer.text.slice(0, 160)}`)
      if (refusedBatch && (answer.status !== 400 || code !== -32600)) add('mcp', `a batch under ${c.version ?? 'no MCP-Protocol-Version (2025-03-26)'} answered ${answer.status} ${answer.text.slice(0, 160)}`)
      if ((refusedBatch || unsupported) && ran > 0) add('mcp', `a refused request ran ${ran} tool call(s)`)
    }
    console.log(`contract fuzz MCP transport: ${cases.length} requests, outcomes ${JSON.stringify(Object.fromEntries(Object.entries(outcomes).sort()))}`)
    const report = findings.slice(start).map((f) => `[${f.check}] ${f.operationId}: ${f.detail}\n    ${f.curl}`)
    expect([...new Set(report)]).toEqual([])
  })

  // ---------------------------------------------------------------------------------------------
  // ignored_auth (Schemathesis): a valid request without its credentials, or with ones nobody has

  /** One way of sending a secured operation's request without valid credentials, and the refusal it must get. */
  interface CredentialCase {
    name: string
    /** The headers it is sent with (the generated request's own are added). */
    headers: Record<string, string>
    /** The status of the refusal; undefined: any refusal the operation documents. */
    status?: number
    /** The `{error}` message, where the spec gives its words. */
    message?: string
    /** A bearer token's challenge (RFC 6750 3): none was sent, or the one sent is not valid. */
    challenge?: 'no-token' | 'invalid-token'
  }

  // spec: Errors, "Status codes and messages for a missing or invalid API key: not shown": the contract's
  // Unauthorized (401, x-inferred) is the refusal; its message is the twin's own, so any {error}.
  const KEY_REFUSED = 401
  // spec: Errors, "400 | missing shop header | `Missing X-Shop-Id header`" and "400 | malformed shop id | `Invalid shop_id`".
  const SHOP_HEADER_MISSING = { status: 400, message: 'Missing X-Shop-Id header' }
  const SHOP_ID_MALFORMED = { status: 400, message: 'Invalid shop_id' }
  // spec: Errors, "403 | `Shop not found or not owned by user` | ads endpoints" (and Sales-max ads, "403 `{error: Shop not found
  // or not owned by user}`"); elsewhere the spec names the 403 only ("forbidden"), so its words are asked of the ads endpoints.
  const SHOP_NOT_OWNED = { status: 403, message: 'Shop not found or not owned by user' }
  // The shop id's format is not shown (the contract's ShopId: the twin's ids are UUIDs, inferred): well formed is a UUID here.
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

  const knownKeys = new Set(state.world.apiKeys.map((k) => k.key))
  const knownShops = new Set([...state.world.shops, ...state.world.foreignShops].map((s) => s.shop_id.toLowerCase()))
  // Random values, and near misses of the real ones (another case, one character more or less, one hex digit changed),
  // which a lookup by prefix or without case would take.
  const nearMissKeys = state.world.apiKeys.flatMap(({ key }) => [key.toUpperCase(), `${key}x`, key.slice(0, -1)])
  const unknownKeys = [...nearMissKeys, ...fc.sample(fc.stringMatching(/^[A-Za-z0-9-]{12,48}$/), { seed: SEED + 600_000, numRuns: 64 })].filter((k) => !knownKeys.has(k))
  const nearMissShops = state.world.shops.map(({ shop_id }) => shop_id.replace(/[0-9a-f](?=[^-]*$)/i, (d) => (d.toLowerCase() === 'a' ? 'b' : 'a')))
  const nobodysShops = [...nearMissShops, ...fc.sample(fc.uuid(), { seed: SEED + 610_000, numRuns: 64 })].filter((id) => !knownShops.has(id.toLowerCase()))
  const malformedShops = fc.sample(fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/), { seed: SEED + 620_000, numRuns: 64 }).filter((id) => !UUID.test(id))
  const unknownTokens = fc.sample(fc.stringMatching(/^[A-Za-z0-9_-]{32,64}$/), { seed: SEED + 630_000, numRuns: 64 })
  const unknownSessions = fc.sample(fc.stringMatching(/^[A-Za-z0-9_-]{16,48}$/), { seed: SEED + 640_000, numRuns: 64 })
  /** The n-th value, round the list: the near misses (first) go to the first operations, the random ones to the rest. */
  const pick = <T>(values: readonly T[], n: number): T => values[n % values.length]!

  // Keys the service knows that do not grant the call. spec: Authentication 3, "each key may be limited to specific routes and
  // shops ... A call outside the key's routes or shops returns 403"; Authentication 4, "Enterprise endpoints need an Enterprise
  // plan; a standard key is refused with an authorization error" (Errors: 403, "forbidden": no words to ask for).
  const limitedKey = state.world.apiKeys.find((k) => k.routes !== '*' && k.shops !== '*')
  const standardKey = state.world.apiKeys.find((k) => k.tier === 'standard' && k.routes === '*' && k.shops === '*')
  /** Whether a key's routes take the operation: its permission, or (an alias) its canonical operation's. */
  const routeGranted = (key: { routes: '*' | readonly string[] }, op: OperationInfo) => key.routes === '*' || key.routes.includes(op.permission) || (op.aliasOf !== undefined && key.routes.includes(contract.byId.get(op.aliasOf)!.permission))

  /** The API's cases for an operation with `security: [{ApiKey: []}]`, and with the x-shop-id parameter where it has one. */
  function apiCredentialCases(op: OperationInfo, n: number): CredentialCase[] {
    const key = { 'x-api-key': API_HEADERS['x-api-key'] }
    const shopHeader: Record<string, string> = op.auth === 'key+shop' ? { 'x-shop-id': API_HEADERS['x-shop-id'] } : {}
    const cases: CredentialCase[] = [
      { name: 'without x-api-key', headers: shopHeader, status: KEY_REFUSED },
      { name: 'with an x-api-key nobody has', headers: { 'x-api-key': pick(unknownKeys, n), ...shopHeader }, status: KEY_REFUSED },
    ]
    if (limitedKey && !routeGranted(limitedKey, op)) {
      const limitedShop: Record<string, string> = limitedKey.shops === '*' ? {} : { 'x-shop-id': limitedKey.shops[0]! }
      cases.push({ name: 'with a key whose routes do not include it', headers: { 'x-api-key': limitedKey.key, ...(op.auth === 'key+shop' ? limitedShop : {}) }, status: 403 })
    }
    if (limitedKey && routeGranted(limitedKey, op) && op.auth === 'key+shop' && limitedKey.shops !== '*') {
      const outside = state.world.shops.find((s) => !limitedKey.shops.includes(s.shop_id))!
      cases.push({ name: "with a key whose shops do not include the account's shop", headers: { 'x-api-key': limitedKey.key, 'x-shop-id': outside.shop_id }, status: 403 })
    }
    if (standardKey && op.enterprise) cases.push({ name: 'with a standard key on an Enterprise endpoint', headers: { 'x-api-key': standardKey.key, ...shopHeader }, status: 403 })
    if (op.auth !== 'key+shop') return cases
    const notOwned = op.planGate === 'active-paid' ? SHOP_NOT_OWNED : { status: SHOP_NOT_OWNED.status }
    const foreign = state.world.foreignShops[n % state.world.foreignShops.length]!.shop_id
    return [
      ...cases,
      { name: 'without x-shop-id', headers: key, ...SHOP_HEADER_MISSING },
      { name: 'with a malformed x-shop-id', headers: { ...key, 'x-shop-id': pick(malformedShops, n) }, ...SHOP_ID_MALFORMED },
      { name: "with another account's shop as x-shop-id", headers: { ...key, 'x-shop-id': foreign }, ...notOwned },
      { name: 'with a well-formed x-shop-id nobody has', headers: { ...key, 'x-shop-id': pick(nobodysShops, n) }, ...notOwned },
    ]
  }

  /** The security scheme a connector operation cannot do without (`security` with no empty alternative), if any. */
  function requiredScheme(op: ConnectorOperationInfo): { name: string; type: string; cookie?: string } | undefined {
    const doc = contract.doc as unknown as { security?: unknown[]; components: { securitySchemes: Record<string, { type: string; in?: string; name?: string }> } }
    const security = (op.operation.security ?? doc.security ?? []) as Array<Record<string, unknown>>
    if (security.length === 0 || security.some((s) => Object.keys(s).length === 0)) return undefined
    const name = Object.keys(security[0]!)[0]!
    const scheme = doc.components.securitySchemes[name]!
    return { name, type: scheme.type, ...(scheme.in === 'cookie' ? { cookie: scheme.name! } : {}) }
  }

  /**
   * The connector's cases: a bearer token (ConnectorOAuth) absent or unknown gets 401 with the challenge
   * the contract declares; a session cookie (ConnectorSession) absent or unknown gets a refusal (403
   * "Not signed in" when the request is otherwise one the server would take).
   */
  function connectorCredentialCases(scheme: NonNullable<ReturnType<typeof requiredScheme>>, n: number, sessionStatus?: number): CredentialCase[] {
    if (scheme.type === 'oauth2') {
      // RFC 6750 3.1 and the contract's 401 of POST /mcp: "No token, or a token unknown, expired, revoked or for another resource".
      return [
        { name: 'without a bearer token', headers: {}, status: 401, challenge: 'no-token' },
        { name: 'with a bearer token nobody was given', headers: { authorization: `Bearer ${pick(unknownTokens, n)}` }, status: 401, challenge: 'invalid-token' },
      ]
    }
    return [
      { name: `without the ${scheme.cookie} cookie`, headers: {}, ...(sessionStatus ? { status: sessionStatus } : {}) },
      { name: `with a ${scheme.cookie} cookie nobody has`, headers: { cookie: `${scheme.cookie}=${pick(unknownSessions, n)}` }, ...(sessionStatus ? { status: sessionStatus } : {}) },
    ]
  }

  /** What is wrong with the answer to a request without valid credentials: it must be refused, as declared. */
  function credentialProblems(c: CredentialCase, answer: Answer, api: OperationInfo | undefined, connector: ConnectorOperationInfo | undefined): string[] {
    if (answer.status < 400) return [`accepted: ${answer.status} ${answer.text.slice(0, 160)}`]
    const problems: string[] = []
    if (c.status !== undefined && answer.status !== c.status) problems.push(`${answer.status}, not ${c.status}: ${answer.text.slice(0, 160)}`)
    if (api && !isErrorBody(answer.text)) problems.push(`${answer.status} is not {error}: ${answer.text.slice(0, 160)}`)
    if (c.message !== undefined && answer.status === c.status && errorOf(answer.text) !== c.message) problems.push(`{"error": ${JSON.stringify(errorOf(answer.text))}}, not the spec's ${JSON.stringify(c.message)}`)
    const schema = api ? contractProblem(contract, api, answer.status, answer.text) : connectorProblem(connector!, answer)
    if (schema) problems.push(`schema: ${schema}`)
    const missing = missingHeaders((api ?? connector)!.operation as Record<string, unknown>, answer.status, answer.headers)
    if (missing.length) problems.push(`${answer.status} without the header${missing.length > 1 ? 's' : ''} the contract declares required: ${missing.join(', ')}`)
    if (c.challenge && answer.status === 401) {
      // The contract's WWW-Authenticate: `Bearer resource_metadata="<the protected-resource metadata URL>"` (RFC 9728 5.1),
      // with `error="invalid_token"` when a token was sent (RFC 6750 3.1: none when the request had no credentials).
      const challenge = answer.headers.get('www-authenticate') ?? ''
      if (!/^Bearer\s/i.test(challenge)) problems.push(`WWW-Authenticate is not a Bearer challenge: ${JSON.stringify(challenge)}`)
      if (!/resource_metadata="[^"]*\/\.well-known\/oauth-protected-resource\/mcp"/.test(challenge)) problems.push(`WWW-Authenticate does not name the protected-resource metadata: ${JSON.stringify(challenge)}`)
      if ((c.challenge === 'invalid-token') !== /error="invalid_token"/.test(challenge)) problems.push(`WWW-Authenticate ${c.challenge === 'invalid-token' ? 'without' : 'with'} error="invalid_token" ${c.challenge === 'invalid-token' ? 'for a token sent' : 'when no token was sent'}: ${JSON.stringify(challenge)}`)
    }
    return problems
  }

  const securedApiOps = apiOps.filter((op) => op.auth !== 'none')
  const securedConnectorOps = connectorOps.flatMap((op) => {
    const scheme = requiredScheme(op)
    return scheme ? [{ op, scheme }] : []
  })

  it(`ignored auth: every operation that declares security refuses a valid request without its credentials, or with ones nobody has (${securedApiOps.length} API, ${securedConnectorOps.length} connector operations)`, { timeout: timeoutFor(AUTH_RUNS, 1_500) }, async () => {
    const start = findings.length
    const options = { today: TODAY, hints, awkward: AWKWARD }
    const counts: Record<string, number> = {}
    const count = (key: string) => (counts[key] = (counts[key] ?? 0) + 1)
    const check = async (op: FuzzOperation, generated: GeneratedRequest, c: CredentialCase, api: OperationInfo | undefined, connector?: ConnectorOperationInfo) => {
      const headers = { ...c.headers, ...generated.headers, ...(op.path === '/mcp' ? { accept: 'application/json, text/event-stream' } : {}) }
      const { answer, curl } = await deliver(op, generated, headers, 'auth')
      count(`${c.name}: ${answer.status}`)
      for (const problem of credentialProblems(c, answer, api, connector)) findings.push({ check: 'ignored-auth', operationId: op.operationId, detail: `${c.name}: ${problem}`, curl })
    }

    // The API: requests the positive generator makes (valid by the contract), with the credentials taken away or replaced.
    const unexercised: string[] = []
    for (const [index, info] of securedApiOps.entries()) {
      const op = apiOperation(info)
      const checker = checkerOf(contract, op)
      const positives = fc.sample(positiveArbitrary(contract, op, options), { seed: SEED + 650_000 + index, numRuns: AUTH_RUNS * 8 + 16 }).filter((r) => !checker.problem(r)).slice(0, AUTH_RUNS)
      if (!positives.length) unexercised.push(info.operationId)
      for (const [run, generated] of positives.entries()) for (const c of apiCredentialCases(info, index * AUTH_RUNS + run)) await check(op, generated, c, info)
    }

    // The connector: generated requests (a generated request's ids are unknown, so a session operation may refuse them for that first).
    for (const [index, { op: connector, scheme }] of securedConnectorOps.entries()) {
      const op = connectorOperation(connector)
      const checker = checkerOf(contract, op)
      const positives = fc.sample(positiveArbitrary(contract, op, options), { seed: SEED + 660_000 + index, numRuns: AUTH_RUNS * 8 + 16 }).filter((r) => !checker.problem(r)).slice(0, AUTH_RUNS)
      if (!positives.length) unexercised.push(connector.operationId)
      for (const [run, generated] of positives.entries()) for (const c of connectorCredentialCases(scheme, index * AUTH_RUNS + run)) await check(op, generated, c, undefined, connector)
    }

    // The connector with real requests: an authorization of the shop's user in flight, signed in in a browser. The consent answer
    // and the revocation of the connection are refused for their session alone (403, the contract's "Not signed in"), then
    // accepted from the browser; the token the code gave is refused once its connection is revoked.
    const connectorOp = (id: string) => connectorOps.find((o) => o.operationId === id)!
    const formRequest = (op: ConnectorOperationInfo, form: URLSearchParams): GeneratedRequest => ({ kind: 'positive', path: op.path, query: '', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() })
    const user = state.connector.data.users.find((u) => u.account_id === shop.account_id)!
    const redirect = 'http://127.0.0.1:9/contract-fuzz-auth'
    const registered = await send('POST', '/oauth/register', { 'content-type': 'application/json' }, JSON.stringify({ client_name: 'contract fuzz (ignored auth)', redirect_uris: [redirect] }))
    const { client_id } = JSON.parse(registered.text) as { client_id: string }
    const { verifier, challenge } = pkcePair()
    const authorize = new URL(`${base}/oauth/authorize`)
    for (const [k, v] of Object.entries({ response_type: 'code', client_id, redirect_uri: redirect, state: 'auth', code_challenge: challenge, code_challenge_method: 'S256' })) authorize.searchParams.set(k, v)
    const browser = createBrowser()
    let page = await browser.open(authorize.href)
    if (page.html.includes('name="password"')) page = await browser.open(`${base}/oauth/sign-in`, new URLSearchParams({ ...hiddenFields(page.html), email: user.email, password: user.password }))
    expect(page.status, page.html.slice(0, 200)).toBe(200)
    const consentForm = new URLSearchParams(hiddenFields(page.html))
    for (const s of checkboxValues(page.html, 'shop')) consentForm.append('shop', s)
    for (const t of checkboxValues(page.html, 'tool')) consentForm.append('tool', t)
    consentForm.set('decision', 'allow')
    const consentOp = connectorOp('answerConnectorConsent')
    for (const c of connectorCredentialCases(requiredScheme(consentOp)!, 0, 403)) await check(connectorOperation(consentOp), formRequest(consentOp, consentForm), c, undefined, consentOp)
    const back = await browser.open(`${base}/oauth/authorize`, consentForm)
    const code = back.location ? new URL(back.location).searchParams.get('code') : null
    expect(code, `the consent from the signed-in browser: ${back.status} ${back.location ?? back.html.slice(0, 200)}`).toBeTruthy()
    const token = await send('POST', '/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ grant_type: 'authorization_code', code: code!, code_verifier: verifier, client_id, redirect_uri: redirect }).toString())
    const { access_token } = JSON.parse(token.text) as { access_token: string }
    const connection = Object.values(state.connector.data.connections).find((c) => c.client_id === client_id && !c.revoked_at)!
    const revokeOp = connectorOp('revokeConnectorConnection')
    const revokeForm = new URLSearchParams({ connection_id: connection.connection_id })
    for (const c of connectorCredentialCases(requiredScheme(revokeOp)!, 1, 403)) await check(connectorOperation(revokeOp), formRequest(revokeOp, revokeForm), c, undefined, revokeOp)
    const mcpOp = connectorOp('callConnectorMcp')
    const toolsList: GeneratedRequest = { kind: 'positive', path: '/mcp', query: '', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) }
    const live = await deliver(connectorOperation(mcpOp), toolsList, { ...toolsList.headers, accept: 'application/json, text/event-stream', authorization: `Bearer ${access_token}` }, 'auth')
    expect(live.answer.status, `tools/list with the token before the revocation: ${live.answer.text.slice(0, 200)}`).toBe(200)
    const revoked = await browser.open(`${base}/oauth/connections/revoke`, revokeForm)
    expect(revoked.status, `the revocation from the signed-in browser: ${revoked.html.slice(0, 200)}`).toBe(200)
    await check(connectorOperation(mcpOp), toolsList, { name: 'with the bearer token of a revoked connection', headers: { authorization: `Bearer ${access_token}` }, status: 401, challenge: 'invalid-token' }, undefined, mcpOp)

    console.log(`contract fuzz ignored auth: ${JSON.stringify(Object.fromEntries(Object.entries(counts).sort()))} (CONTRACT_FUZZ_AUTH_RUNS=${AUTH_RUNS})`)
    expect(unexercised, 'secured operations for which the generator made no valid request').toEqual([])
    const report = findings.slice(start).map((f) => `[${f.check}] ${f.operationId}: ${f.detail}\n    ${f.curl}`)
    expect([...new Set(report)]).toEqual([])
  })

  // ---------------------------------------------------------------------------------------------
  // use_after_free and ensure_resource_availability (Schemathesis), along the contract's links

  /** A generated request with its path values, as links.ts lays a link's values over it. */
  type LinkableRequest = GeneratedRequest & { pathValues: Record<string, unknown> }
  const fuzzOps = new Map(every.map(([id, op, api]) => [id, { op, api }]))
  const resources = deletableResources(links, new Map(every.map(([id, op]) => [id, { method: op.method, successStatus: contract.byId.get(id)?.successStatus }])))
  /** The status of the operation's NotFound response: the contract's refusal of a missing resource. */
  const notFoundStatusOf = (operationId: string): number | undefined => {
    const responses = contract.byId.get(operationId)!.operation.responses as Record<string, { $ref?: string }>
    const key = Object.keys(responses).find((k) => responses[k]!.$ref === '#/components/responses/NotFound')
    return key === undefined ? undefined : Number(key)
  }
  /** A read of the resource: GET, or an operationId the contract names get* (POST /dashboards/get, /workflows/get). */
  const isRead = (operationId: string) => fuzzOps.get(operationId)!.op.method === 'GET' || /^get[A-Z]/.test(operationId)

  it(`use after free: a resource created then deleted is not found by any operation that addresses it by its id; right after the create, its get finds it (${resources.map((r) => r.create).join(', ')})`, { timeout: timeoutFor(DELETE_RUNS, 300) }, async () => {
    expect(resources.length).toBeGreaterThan(0)
    // The phases before this one fill the Scale shop's quotas in a widened run (at CONTRACT_FUZZ_RUNS=600, seed
    // 20261127, the shop held its 500 creator briefs, spec: Limits, and createCreatorBrief was never created here).
    // This phase checks create, get, delete, get again, which needs room: it starts from the world as the server
    // started (its curl lines replay against a fresh `npm start`). The ordinary run fills the briefs as a widened one does.
    const brief = JSON.stringify({ type: 'static', title: 'quota', video_mode: 'auto' })
    let filled = 0
    while ((await send('POST', '/creator-briefs/create', { ...API_HEADERS, 'content-type': 'application/json' }, brief)).status === 201) filled++
    expect(filled).toBeLessThanOrEqual(500)
    state.reset()
    await state.admin.run('dashboards/open', { shop_id: shop.shop_id })
    const start = findings.length
    const options = { today: TODAY, hints, awkward: AWKWARD }
    const counts = { resources: resources.length, creates: 0, createRefused: 0, reads: 0, deletes: 0, deleteRefused: 0, afterDelete: 0, replays: 0, unresolved: 0 }
    const deletedPer = new Map<string, number>()
    for (const [index, resource] of resources.entries()) {
      const create = fuzzOps.get(resource.create)!.op
      const createChecker = checkerOf(contract, create)
      // Generated creates (many are refused for ids the world does not have), then the create's smallest body (its
      // required fields, from the contract) so that every resource is created and deleted at least once.
      const smallest: LinkableRequest[] = create.body ? [{ kind: 'positive', path: create.path, pathValues: {}, query: '', headers: { 'content-type': create.body.mediaType }, body: JSON.stringify(exampleFromSchema(contract, create.body.schema, TODAY)) }] : []
      const valid = (r: LinkableRequest) => !createChecker.problem(r)
      const sources = [...fc.sample(positiveArbitrary(contract, create, options), { seed: SEED + 700_000 + index, numRuns: DELETE_RUNS * 32 }).filter(valid).slice(0, DELETE_RUNS * 8), ...smallest.filter(valid)]
      // Each addressed operation's generated requests, the link's values (the id the create answered) laid over them.
      const targets = new Map<ContractLink, { op: FuzzOperation; checker: OperationChecker; generated: LinkableRequest[] }>(
        resource.addressed.map((link, j) => {
          const op = fuzzOps.get(link.operationId)!.op
          return [link, { op, checker: checkerOf(contract, op), generated: fc.sample(positiveArbitrary(contract, op, options), { seed: SEED + 710_000 + index * 100 + j, numRuns: 24 }) }]
        }),
      )
      const linked = (link: ContractLink, from: LinkSource) => {
        const t = targets.get(link)!
        return t.generated.map((g) => applyLink(link, from, g, t.op.path, t.op.body?.mediaType)).find((l) => l && !t.checker.problem(l.request))?.request
      }
      /** The request with the link's values and nothing else (a get by the id alone), if the contract takes it as it is. */
      const bare = (link: ContractLink, from: LinkSource) => {
        const t = targets.get(link)!
        const empty = { kind: 'positive' as const, path: t.op.path, pathValues: {}, query: '', headers: {} }
        const request = applyLink(link, from, empty, t.op.path, t.op.body?.mediaType)?.request
        return request && !t.checker.problem(request) ? request : undefined
      }
      let deleted = 0
      for (const generated of sources) {
        if (deleted >= DELETE_RUNS) break
        const created = await exercise(create, generated, judgePositive(create), true, { key: true })
        if (created.answer.status >= 300) {
          counts.createRefused++
          continue
        }
        counts.creates++
        const from: LinkSource = { requestHeaders: created.headers, requestBody: parseJson(generated.body), requestQuery: new URLSearchParams(generated.query), responseHeaders: created.answer.headers, responseBody: parseJson(created.answer.text) }
        // ensure_resource_availability: right after the create, a get by the id it answered (and nothing else) finds it.
        for (const link of resource.addressed.filter((l) => isRead(l.operationId))) {
          const request = bare(link, from) ?? linked(link, from)
          if (!request) {
            counts.unresolved++
            continue
          }
          counts.reads++
          const call = `${link.operationId} by the value ${resource.create} answered, right after it`
          await exercise(targets.get(link)!.op, request, (answer) => (answer.status < 300 ? undefined : `resource-availability: ${call}: ${answer.status} ${answer.text.slice(0, 160)}`), true, { label: 'available' })
        }
        const removeRequest = linked(resource.remove, from)
        if (!removeRequest) {
          counts.unresolved++
          continue
        }
        const removeOp = targets.get(resource.remove)!.op
        // With an Idempotency-Key where the delete takes one: it is replayed below.
        const removed = await exercise(removeOp, removeRequest, (answer) => (answer.status === 404 ? `resource-availability: ${resource.remove.operationId} of what ${resource.create} just created: 404 ${answer.text.slice(0, 160)}` : undefined), true, { key: true, label: 'delete' })
        if (removed.answer.status >= 300) {
          counts.deleteRefused++
          continue
        }
        counts.deletes++
        deleted++
        // use_after_free: every operation that addresses it by the same id (the delete again included, with a new key or none).
        for (const link of resource.addressed) {
          const request = linked(link, from)
          if (!request) {
            counts.unresolved++
            continue
          }
          counts.afterDelete++
          const notFound = notFoundStatusOf(link.operationId)
          const call = `${link.operationId} by the value ${resource.create} answered, after ${resource.remove.operationId} answered ${removed.answer.status}`
          await exercise(
            targets.get(link)!.op,
            request,
            (answer) => {
              if (notFound === undefined) return `use-after-free: ${call}: the contract declares no not-found refusal (NotFound) for ${link.operationId}`
              if (answer.status === notFound || exclusionFor('use-after-free', link.operationId, answer.text, call)) return undefined
              return `use-after-free: ${call}: ${answer.status < 300 ? 'a success' : `${answer.status}, not the not-found refusal ${notFound}`}: ${answer.status} ${answer.text.slice(0, 160)}`
            },
            true,
            { label: 'after-delete' },
          )
        }
        // The delete replayed with its own key: the spec's replay (exclusions.ts), so the original answer byte for byte.
        if (removed.headers['idempotency-key']) {
          counts.replays++
          const call = 'the delete replayed with the Idempotency-Key it was sent with'
          const { answer, curl } = await deliver(removeOp, removeRequest, removed.headers, 'replay')
          const add = (detail: string) => findings.push({ check: 'use-after-free', operationId: removeOp.operationId, detail: `${call}: ${detail}`, curl })
          if (answer.status !== notFoundStatusOf(removeOp.operationId) && !exclusionFor('use-after-free', removeOp.operationId, answer.text, call)) add(`${answer.status} ${answer.text.slice(0, 160)}`)
          if (answer.status !== removed.answer.status || answer.text !== removed.answer.text) add(`not the original answer (${removed.answer.status} ${removed.answer.text.slice(0, 100)}): ${answer.status} ${answer.text.slice(0, 100)}`)
          const schema = contractProblem(contract, contract.byId.get(removeOp.operationId)!, answer.status, answer.text)
          if (schema) findings.push({ check: 'schema', operationId: removeOp.operationId, detail: schema, curl })
        }
      }
      deletedPer.set(resource.create, deleted)
    }
    console.log(`contract fuzz use after free: ${JSON.stringify(counts)}; deleted per create ${JSON.stringify(Object.fromEntries(deletedPer))} (CONTRACT_FUZZ_DELETE_RUNS=${DELETE_RUNS})`)
    expect([...deletedPer].filter(([, n]) => n === 0).map(([id]) => id), 'creates whose resource was never created and deleted').toEqual([])
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
