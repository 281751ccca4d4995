/**
 * `npm run contract:tools`: the shipped contract (openapi/openapi.json) through the tools partners run on
 * it, as their users run them, with this folder's pinned install (package.json beside this file).
 *
 * Generators: @hey-api/openapi-ts 0.99 (its default fetch SDK; zod and valibot plugins with the SDK's
 * response validator) and kubb 4.39 (plugin-oas, plugin-ts, plugin-client with fetch, plugin-zod; its
 * defaults, then paramsType object and parser zod, the v5 shape). The output is checked with `tsc
 * --strict` under TypeScript 7 (the project's) and 5.9, then bundled, imported, and every operation's
 * example request (openapi/examples/requests.ts, with the calls it makes first) is made through it
 * against `shoptwin serve` (in process, 127.0.0.1 port 0), and the connector's client registration and
 * metadata documents; zod/valibot parse the answers and the requests. (Before 8a8a983 kubb's zod
 * refused the right registration request: grant_types spelled as array-valued consts.)
 * kubb 5.2 is not here: the registry has its core and plugin-zod 5.1.6 but no plugin-ts or plugin-client
 * 5, and plugin-zod 5.1.6 wants kubb ^5.2.3 (test/contract-generators.test.ts has what it found).
 *
 * Validators: every exchange of that sweep, with error answers added for each operation (no key, no
 * shop, a wrong type, every documented status through Prefer), checked with openapi-backend 5.21 (its
 * request, response and response-header validators, with ajv-formats) and express-openapi-validator 5.6
 * (requests and responses, in front of the twin's recorded answers); and @readme/openapi-parser 9's
 * validate on the document.
 *
 * `CONTRACT=<file> npm run contract:tools` reads another document instead of the shipped one.
 * What a tool gets wrong on a correct contract is listed as KNOWN with the evidence, and does not fail the
 * run; anything else does (exit 1). Output goes to out/ beside this file (git-ignored), rebuilt each run.
 */
import { execFile } from 'node:child_process'
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { createMockState } from '../../mock/index.ts'
import { createServer } from '../../mock/server.ts'
import { EXAMPLE_WORLD, serialiseQuery } from '../../openapi/examples/generate.ts'
import { exampleRequests, type ExampleContext, type ExampleRequest } from '../../openapi/examples/requests.ts'
import type { OperationInfo } from '../../openapi/index.ts'

const here = fileURLToPath(new URL('.', import.meta.url))
const root = fileURLToPath(new URL('../../', import.meta.url))
const out = join(here, 'out')
const bin = (name: string) => join(here, 'node_modules', '.bin', name)
const run = promisify(execFile)
const require = createRequire(join(here, 'package.json'))

/** A tool's mistake on a correct contract: which exchange or file, what it says, and why it is the tool's. */
interface Known { tool: string; match: RegExp; why: string }
const KNOWN: Known[] = [
  {
    tool: 'hey-api',
    match: /^listSparkCodesGet: (undefined )?threw Deeply-nested arrays\/objects aren’t supported/,
    why: 'hey-api 0.99 ignores a query parameter\'s `content` (search_params is JSON text, OpenAPI 3.1 4.8.12) and serialises it as a form object, which throws on its nested date range. The flat keys (shared_time_from...) or the POST form work.',
  },
  {
    tool: 'kubb',
    match: /^listSparkCodesGet: threw .*search_params=%5Bobject\+Object%5D/s,
    why: 'kubb 4.39\'s fetch client writes every query value with toString(): search_params is sent as "[object Object]" (400, rightly), and parser zod then parses the 400 with the 200 schema. No style, explode or content is read; flat keys work.',
  },
  {
    tool: 'kubb',
    match: /^registerConnectorClient: threw .*"path": \[\s*"client_id"/s,
    why: 'kubb 4.39\'s fetch client sends a JSON body with no content-type (fetch then says text/plain), whatever the operation\'s media type: the connector\'s registration refuses it (400 invalid_client_metadata naming the media type, RFC 7591 3) and parser zod parses that 400 with the 201 schema. The API\'s operations read the body whatever its type. A kubb user sets content-type in the client config.',
  },
  {
    tool: 'express-openapi-validator',
    match: /^(getHaloReportGet|listSparkCodesGet) example \(twin 200\): request 400: request\/query\/(date_range|shared_time) must have required property 'from'/,
    why: 'express-openapi-validator 5.6 fills an absent optional deepObject query parameter with {} (req.parameter.mutator.js handleDeepObject) and then validates {} against DateRange, which requires from and to. `allOf: [{$ref}]` instead of `$ref` avoids it (checked: 0 problems) but the twin\'s query parser follows $ref only.',
  },
]

const problems: string[] = []
const known = new Map<Known, string[]>()
function judge(tool: string, found: string[]) {
  for (const line of found) {
    const k = KNOWN.find((entry) => entry.tool === tool && entry.match.test(line))
    if (k) known.set(k, [...(known.get(k) ?? []), line])
    else problems.push(`${tool}: ${line}`)
  }
}
const log = (line: string) => process.stdout.write(`${line}\n`)

await rm(out, { recursive: true, force: true })
await mkdir(out, { recursive: true })
const contractFile = join(out, 'openapi.json')
// CONTRACT=<file>: another document (an older openapi.json, a partner's copy) against the same twin.
await cp(process.env.CONTRACT ?? join(root, 'openapi/openapi.json'), contractFile)

// --- Generate ------------------------------------------------------------------------------------
const heyConfig = (dir: string, plugins: unknown[]) => `import { defineConfig } from '@hey-api/openapi-ts'\nexport default defineConfig(${JSON.stringify({ input: contractFile, output: join(out, dir), plugins })})\n`
const kubbConfig = (dir: string, client: Record<string, unknown>) => `import { defineConfig } from '@kubb/core'
import { pluginOas } from '@kubb/plugin-oas'
import { pluginTs } from '@kubb/plugin-ts'
import { pluginClient } from '@kubb/plugin-client'
import { pluginZod } from '@kubb/plugin-zod'
export default defineConfig({ root: ${JSON.stringify(out)}, input: { path: ${JSON.stringify(contractFile)} }, output: { path: ${JSON.stringify(join(out, dir))}, clean: true, format: false }, plugins: [pluginOas(), pluginTs(), pluginClient(${JSON.stringify(client)}), pluginZod()] })\n`
const responseValidator = { name: '@hey-api/sdk', validator: { request: false, response: true } }
const generated: Array<[string, () => Promise<unknown>]> = [
  ['hey-default', () => run(bin('openapi-ts'), ['-i', contractFile, '-o', join(out, 'hey-default')], { cwd: out })],
  ...(['zod', 'valibot'] as const).map((lib): [string, () => Promise<unknown>] => [`hey-${lib}`, async () => {
    await writeFile(join(out, `hey-${lib}.config.ts`), heyConfig(`hey-${lib}`, ['@hey-api/client-fetch', '@hey-api/typescript', lib, responseValidator]))
    return run(bin('openapi-ts'), ['-f', join(out, `hey-${lib}.config.ts`)], { cwd: out })
  }]),
  ...([['kubb-default', { client: 'fetch' }], ['kubb-object', { client: 'fetch', paramsType: 'object', pathParamsType: 'object', parser: 'zod', dataReturnType: 'full' }]] as const).map(([dir, client]): [string, () => Promise<unknown>] => [dir, async () => {
    await writeFile(join(out, `${dir}.config.ts`), kubbConfig(dir, client))
    return run(bin('kubb'), ['generate', '--config', join(out, `${dir}.config.ts`)], { cwd: out, maxBuffer: 64 * 1024 * 1024 })
  }]),
]
for (const [name, generate] of generated) {
  try {
    await generate()
    log(`generated ${name}`)
  } catch (error) {
    problems.push(`${name}: generation failed: ${String((error as { stderr?: string }).stderr || error).slice(0, 2000)}`)
  }
}

// --- Compile (tsc --strict, TypeScript 7 and 5.9) --------------------------------------------------
await writeFile(join(out, 'tsconfig.json'), JSON.stringify({
  compilerOptions: { strict: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', allowImportingTsExtensions: true, noEmit: true, skipLibCheck: true, lib: ['ES2022', 'DOM', 'DOM.Iterable'] },
  include: generated.map(([name]) => `${name}/**/*.ts`),
}))
for (const [version, tsc] of [['7', join(root, 'node_modules/.bin/tsc')], ['5.9', bin('tsc')]] as const) {
  try {
    await run(tsc, ['-p', join(out, 'tsconfig.json')], { cwd: out, maxBuffer: 64 * 1024 * 1024 })
    log(`tsc --strict (TypeScript ${version}): no error`)
  } catch (error) {
    const lines = String((error as { stdout?: string }).stdout ?? error).split('\n').filter((l) => l.includes('error TS'))
    problems.push(...lines.slice(0, 30).map((l) => `tsc ${version}: ${l}`), ...(lines.length > 30 ? [`tsc ${version}: ${lines.length - 30} more errors`] : []))
  }
}

/** The generated code as one ES module (extensionless imports resolved, zod/valibot from this folder). */
async function bundled(name: string, source: string): Promise<Record<string, any>> {
  const file = join(out, `${name}.bundle.mjs`)
  await build({ stdin: { contents: source, resolveDir: out, loader: 'ts' }, bundle: true, platform: 'node', format: 'esm', outfile: file, logLevel: 'silent' })
  return import(pathToFileURL(file).href)
}

// --- The twin, and every operation's example request -----------------------------------------------
const state = createMockState({ ...EXAMPLE_WORLD, rateLimit: false })
const server = createServer({ state })
const baseUrl = await server.listen(0, '127.0.0.1')
const shopId = state.world.shops[0]!.shop_id
type Request = Omit<ExampleRequest, 'summary'>
type Send = (op: OperationInfo, request: Request) => Promise<{ status: number; json: any }>

/**
 * The connector's operations that need no sign-in first, which the API's contract index and examples do
 * not cover: as much of an OperationInfo as the sweep reads.
 */
const connectorOperation = (operationId: string, method: 'GET' | 'POST', path: string, successStatus: number, request: Request): [OperationInfo, Request] =>
  [{ operationId, method, path, successStatus, auth: 'none', query: [], statuses: [] } as unknown as OperationInfo, request]
const connectorCalls = [
  connectorOperation('registerConnectorClient', 'POST', '/oauth/register', 201, { body: { client_name: 'Partner assistant', redirect_uris: ['http://127.0.0.1:33418/callback'], grant_types: ['refresh_token', 'authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' } }),
  connectorOperation('getConnectorAuthorizationServerMetadata', 'GET', '/.well-known/oauth-authorization-server', 200, {}),
  connectorOperation('getConnectorResourceMetadata', 'GET', '/.well-known/oauth-protected-resource/mcp', 200, {}),
]

/** Runs each operation's example on a fresh world through `send` (the calls its builder makes first too). */
async function examples(send: Send): Promise<void> {
  const builderOf = (op: OperationInfo) => exampleRequests[op.operationId] ?? exampleRequests[op.operationId.replace(/V1$/, '')] ?? (op.aliasOf ? exampleRequests[op.aliasOf] : undefined)
  for (const op of state.contract.operations) {
    const build = builderOf(op)
    if (!build) continue
    state.reset()
    state.clock.set(EXAMPLE_WORLD.now)
    const ctx: ExampleContext = { world: state.world, shop: state.world.shops[0]!, data: state.world.shopData[shopId]!, today: EXAMPLE_WORLD.today, call: (id, request) => send(state.contract.byId.get(id)!, request) }
    const { summary: _, ...request } = await build(ctx)
    if (op.method === 'GET' && request.body) {
      request.query = request.body
      delete request.body
    }
    await send(op, request)
  }
  for (const [op, request] of connectorCalls) await send(op, request)
}
const shopHeader = (op: OperationInfo): Record<string, string> => (op.auth === 'key+shop' ? { 'x-shop-id': shopId } : {})

// hey-api: the SDK with its response validator; the request parts through the generated schemas.
for (const lib of ['zod', 'valibot'] as const) {
  const dir = `hey-${lib}`
  const sdk = await bundled(dir, `export * from './${dir}/sdk.gen'\nexport { client } from './${dir}/client.gen'\nexport * as schemas from './${dir}/${lib}.gen'\nexport * as lib from '${lib}'`)
  sdk.client.setConfig({ baseUrl, auth: () => 'demo-enterprise-key' })
  const found: string[] = []
  await examples(async (op, request) => {
    const pascal = op.operationId[0]!.toUpperCase() + op.operationId.slice(1)
    for (const [part, value] of [['Body', request.body], ['Query', request.query], ['Path', request.path]] as const) {
      const schema = sdk.schemas[`${lib === 'zod' ? 'z' : 'v'}${pascal}${part}`]
      if (!schema || value === undefined) continue
      try {
        if (lib === 'zod') schema.parse(value)
        else sdk.lib.parse(schema, value)
      } catch (error) {
        found.push(`${op.operationId}: request ${part} refused by its ${lib} schema: ${String((error as Error).message).slice(0, 600)}`)
      }
    }
    try {
      const r = await sdk[op.operationId]({ body: request.body, query: request.query, path: request.path, headers: { ...shopHeader(op), ...request.headers } })
      const status = r.response?.status as number
      if (status !== op.successStatus) found.push(`${op.operationId}: ${status} ${r.error instanceof Error ? `threw ${r.error.message}` : JSON.stringify(r.error).slice(0, 300)}`)
      return { status, json: r.data ?? r.error }
    } catch (error) {
      found.push(`${op.operationId}: threw ${String((error as Error).message ?? error).slice(0, 600)}`)
      return { status: 0, json: null }
    }
  })
  judge('hey-api', found)
  log(`hey-api (${lib}): every example request made, ${found.length} findings`)
}

// kubb: the v5-shaped client (one options object), zod parsing each answer; the request parts through its zod.
{
  const kubb = await bundled('kubb-object', `export * from './kubb-object/clients/index'\nexport * as zod from './kubb-object/zod/index'\nexport * as fetchClient from '@kubb/plugin-client/clients/fetch'`)
  // The client's own config, as its users set it (an operation without parameters takes only a config).
  kubb.fetchClient.setConfig({ baseURL: baseUrl, headers: { 'x-api-key': 'demo-enterprise-key' } })
  const urls: string[] = []
  const found: string[] = []
  const plainFetch = globalThis.fetch
  globalThis.fetch = ((url: string, init?: RequestInit) => (urls.push(String(url)), plainFetch(url, init))) as typeof fetch
  await examples(async (op, request) => {
    for (const [part, value] of [['MutationRequest', request.body], ['QueryParams', request.query], ['PathParams', request.path]] as const) {
      const schema = kubb.zod[`${op.operationId}${part}Schema`]
      const parsed = schema && value !== undefined ? schema.safeParse(value) : undefined
      if (parsed && !parsed.success) found.push(`${op.operationId}: request ${part} refused by its zod schema: ${JSON.stringify(parsed.error.issues).slice(0, 600)}`)
    }
    try {
      const r = await kubb[op.operationId]({ data: request.body, params: request.query, headers: { ...shopHeader(op), ...request.headers }, ...request.path })
      if (r.status !== op.successStatus) found.push(`${op.operationId}: ${r.status} ${JSON.stringify(r.data).slice(0, 300)}`)
      return { status: r.status, json: r.data }
    } catch (error) {
      found.push(`${op.operationId}: threw ${String((error as Error).message ?? error).slice(0, 600)} at ${urls.at(-1)}`)
      return { status: 0, json: null }
    }
  })
  globalThis.fetch = plainFetch
  judge('kubb', found)
  log(`kubb (paramsType object, parser zod): every example request made, ${found.length} findings`)
}

// --- The exchanges the validators read: the examples, and error answers -----------------------------
interface Exchange { label: string; operationId: string; method: string; path: string; query: string; headers: Record<string, string>; body?: unknown; status: number; responseHeaders: Record<string, string>; responseBody: unknown }
const exchanges: Exchange[] = []
async function record(op: OperationInfo, request: Request, { key = 'demo-enterprise-key' as string | null, shop = true, label = 'example' } = {}) {
  let path = op.path
  for (const [name, value] of Object.entries(request.path ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(value))
  const query = request.query ? serialiseQuery(op, request.query) : ''
  const headers: Record<string, string> = { ...(op.method !== 'GET' ? { 'content-type': 'application/json' } : {}), ...(key ? { 'x-api-key': key } : {}), ...(shop ? shopHeader(op) : {}), ...request.headers }
  const response = await fetch(`${baseUrl}${path}${query ? `?${query}` : ''}`, { method: op.method, headers, body: op.method === 'GET' ? undefined : JSON.stringify(request.body ?? {}) })
  const text = await response.text()
  let json: unknown = text
  try {
    json = JSON.parse(text)
  } catch {}
  exchanges.push({ label, operationId: op.operationId, method: op.method, path, query, headers, body: request.body, status: response.status, responseHeaders: Object.fromEntries(response.headers), responseBody: json })
  return { status: response.status, json: json as any }
}
await examples(async (op, request) => {
  const answer = await record(op, request, { label: 'example' })
  // Exchanges a builder makes first are examples of their own operation; errors are added once per operation.
  if (exchanges.filter((e) => e.operationId === op.operationId).length > 1) return answer
  await record(op, request, { key: null, label: 'no key' })
  if (op.auth === 'key+shop') await record(op, request, { shop: false, label: 'no shop' })
  if (op.method === 'GET' && op.query[0]) await record(op, { ...request, query: { ...request.query, [op.query[0].name]: { wrong: 1 } } }, { label: 'wrong type' })
  if (op.method !== 'GET') await record(op, { ...request, body: { ...request.body, page_size: 'lots' } }, { label: 'wrong type' })
  for (const status of op.statuses) if (status !== op.successStatus) await record(op, { ...request, headers: { ...request.headers, Prefer: `code=${status}` } }, { label: `Prefer code=${status}` })
  return answer
})
await server.close()
log(`${exchanges.length} exchanges recorded (${[...new Set(exchanges.map((e) => e.status))].sort().join(', ')})`)
const contract = JSON.parse(await readFile(contractFile, 'utf8'))

// openapi-backend: its default init checks the document against the OpenAPI 3.0 schema
// (openapi-schema-validator 12 has none for 3.1), logs 2,000 errors for a 3.1 document that uses 3.1
// and then routes nothing (0 operations: every request is notFound); strict: true throws instead. Its
// `quick: true` skips that check, and is what a 3.1 document needs. It validates with Ajv's draft-07
// class (test/contract-validators.test.ts keeps the contract to what draft-07 reads).
{
  const { OpenAPIBackend } = require('openapi-backend') as typeof import('openapi-backend')
  const addFormats = require('ajv-formats') as (ajv: unknown) => unknown
  const logged: string[] = []
  const { error: logError, warn } = console
  console.error = console.warn = (...args: unknown[]) => void logged.push(args.map(String).join(' '))
  const plain = new OpenAPIBackend({ definition: structuredClone(contract) })
  await plain.init()
  const operations = plain.router.getOperations().length
  if (operations > 0) problems.push(`openapi-backend: its default init now routes ${operations} operations: take the note on it out of run.ts`)
  else if (!logged.some((l) => l.includes('Document is not valid OpenAPI'))) problems.push(`openapi-backend: default init routes nothing: ${logged[0]?.slice(0, 300)}`)
  else log('openapi-backend: the default init routes nothing (KNOWN: it checks the 3.1 document against the OpenAPI 3.0 schema, logs "Document is not valid OpenAPI", and keeps no operation); quick: true from here')
  const api = new OpenAPIBackend({ definition: structuredClone(contract), quick: true, customizeAjv: (ajv) => (addFormats(ajv), ajv) })
  await api.init()
  console.error = logError
  console.warn = warn
  const found: string[] = []
  for (const e of exchanges) {
    const request = { method: e.method, path: e.path, query: e.query, headers: e.headers, body: e.body }
    const op = api.router.matchOperation(request)
    if (op?.operationId !== e.operationId) {
      found.push(`${e.operationId} ${e.label}: routed to ${op?.operationId}`)
      continue
    }
    const where = `${e.operationId} ${e.label} (twin ${e.status})`
    if (e.status < 400) {
      const v = api.validator.validateRequest(request, op)
      if (!v.valid) found.push(`${where}: request refused: ${JSON.stringify(v.errors).slice(0, 500)}`)
    }
    if (typeof e.responseBody !== 'object') continue
    const body = api.validator.validateResponse(e.responseBody, op, e.status)
    if (!body.valid) found.push(`${where}: answer refused: ${JSON.stringify(body.errors).slice(0, 500)}`)
    const headers = api.validator.validateResponseHeaders(e.responseHeaders, op, { statusCode: e.status, setMatchType: 'superset' as never })
    if (!headers.valid) found.push(`${where}: answer's headers refused: ${JSON.stringify(headers.errors).slice(0, 500)}`)
  }
  judge('openapi-backend', found)
  log(`openapi-backend 5.21 (quick, ajv-formats): ${exchanges.length} exchanges, ${found.length} findings`)
}

// express-openapi-validator: in front of the twin's recorded answers, each request replayed.
{
  const express = require('express') as typeof import('express')
  const validator = require('express-openapi-validator') as typeof import('express-openapi-validator')
  const app = express()
  app.use(express.json({ limit: '20mb' }))
  app.use(validator.middleware({ apiSpec: structuredClone(contract), validateRequests: true, validateResponses: true }))
  app.use((req, res) => {
    const e = exchanges[Number(req.get('x-exchange'))]!
    for (const [name, value] of Object.entries(e.responseHeaders)) if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date'].includes(name)) res.setHeader(name, value)
    res.status(e.status).json(e.responseBody)
  })
  app.use((error: { status?: number; message: string }, _req: unknown, res: import('express').Response, _next: unknown) => {
    res.status(599).json({ where: error.status === 500 ? 'answer' : 'request', status: error.status, message: error.message })
  })
  const listening = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => listening.once('listening', resolve))
  const base = `http://127.0.0.1:${(listening.address() as { port: number }).port}`
  const found: string[] = []
  for (const [i, e] of exchanges.entries()) {
    const r = await fetch(`${base}${e.path}${e.query ? `?${e.query}` : ''}`, { method: e.method, headers: { ...e.headers, 'x-exchange': String(i) }, body: e.method === 'GET' ? undefined : JSON.stringify(e.body ?? {}) })
    const text = await r.text()
    if (r.status === 599) {
      const j = JSON.parse(text) as { where: string; status: number; message: string }
      // A request the twin refused may be refused here too; its answer is what must pass.
      if (!(j.where === 'request' && e.status >= 400)) found.push(`${e.operationId} ${e.label} (twin ${e.status}): ${j.where} ${j.status}: ${j.message.slice(0, 400)}`)
    } else if (r.status !== e.status) found.push(`${e.operationId} ${e.label}: answered ${r.status}, the twin ${e.status}`)
  }
  await new Promise((resolve) => listening.close(resolve))
  judge('express-openapi-validator', found)
  log(`express-openapi-validator 5.6: ${exchanges.length} exchanges, ${found.length} findings`)
}

// @readme/openapi-parser: validate.
{
  const { validate } = (await import(pathToFileURL(require.resolve('@readme/openapi-parser')).href)) as typeof import('@readme/openapi-parser')
  const result = await validate(structuredClone(contract))
  if (!result.valid) judge('@readme/openapi-parser', result.errors.map((e) => JSON.stringify(e).slice(0, 500)))
  judge('@readme/openapi-parser', (result.warnings ?? []).map((w) => `warning: ${JSON.stringify(w).slice(0, 500)}`))
  log(`@readme/openapi-parser 9 validate: ${result.valid ? 'valid' : 'INVALID'}, ${result.warnings?.length ?? 0} warnings`)
}

for (const [k, lines] of known) log(`\nKNOWN (${k.tool}, ${lines.length}): ${k.why}\n  ${lines.map((l) => l.slice(0, 200)).join('\n  ')}`)
for (const k of KNOWN) if (!known.has(k)) log(`\nno longer seen (take it out of KNOWN): ${k.tool}: ${k.match}`)
log(problems.length ? `\n${problems.length} PROBLEMS:\n${problems.join('\n')}` : '\nno problem')
process.exitCode = problems.length ? 1 : 0
