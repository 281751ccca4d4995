/**
 * Runs the connector rules against a target's MCP URL (`shoptwin conformance --mcp-url URL
 * [--mcp-user EMAIL --mcp-password PW]`): one line per rule, exit 0 when every MUST rule passed or
 * was skipped. Most rules stop before sign-in; those past it (code single use, consent scoping,
 * revocation) need a user and drive a consent page with shoptwin's form fields, else are skipped; the
 * activity-log rule also needs the REST API (`--base-url`, `--api-key`).
 */
import { createHash, randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { shortMessage } from '../../../mock/cli-flags.ts'
import { loadContract, indexConnectorOperations } from '../../../openapi/index.ts'
import { REDACTED, redactHeaders } from '../../client.ts'
import type { Exchange } from '../../types.ts'
import { activityBothDoors } from './activity-both-doors.ts'
import { codeSingleUse } from './code-single-use.ts'
import { consentScoping } from './consent-scoping.ts'
import { revocationEffective } from './revocation-effective.ts'
import { streamMethods } from './stream-methods.ts'
import { discoveryDocuments } from './discovery-documents.ts'
import { pkceRequired } from './pkce-required.ts'
import { pkceS256Only } from './pkce-s256-only.ts'
import { redirectExact } from './redirect-exact.ts'
import { registrationRedirects } from './registration-redirects.ts'
import { tokenErrors } from './token-errors.ts'
import type { ConnectorFailure, ConnectorRule, ConnectorRuleContext } from './types.ts'
import { unauthorizedChallenge } from './unauthorized-challenge.ts'

export const connectorRules: ConnectorRule[] = [unauthorizedChallenge, streamMethods, discoveryDocuments, registrationRedirects, pkceRequired, pkceS256Only, redirectExact, tokenErrors, codeSingleUse, consentScoping, revocationEffective, activityBothDoors]

export interface ConnectorOutcome {
  id: string
  title: string
  spec: string
  level: 'MUST' | 'SHOULD'
  status: 'pass' | 'fail' | 'skip' | 'error'
  failures: ConnectorFailure[]
  reason?: string
  /** The requests behind the outcome, secrets redacted (tokens, codes, verifiers, passwords, cookies). */
  exchanges: Exchange[]
  /** The connector operations of the contract those requests reached (operationIds). */
  operations: string[]
  durationMs: number
}

/** Form and JSON fields whose values are secrets: never in a report. */
const SECRET_FIELDS = new Set(['code', 'code_verifier', 'refresh_token', 'access_token', 'token', 'password', 'request_id', 'id_token'])

const redactParams = (params: URLSearchParams): string => {
  for (const name of new Set(params.keys())) if (SECRET_FIELDS.has(name)) params.set(name, REDACTED)
  return params.toString()
}

function redactUrl(href: string): string {
  try {
    const url = new URL(href)
    if (url.search) url.search = redactParams(url.searchParams)
    return url.href
  } catch {
    return href
  }
}

/** A body as a report may show it: secret fields redacted (forms and JSON), HTML pages by their size only. */
function redactBody(text: string, contentType: string): string {
  if (/html/i.test(contentType)) return `(an HTML page, ${text.length} characters)`
  if (/json/i.test(contentType)) {
    try {
      return JSON.stringify(JSON.parse(text, (key, value) => (SECRET_FIELDS.has(key) && typeof value === 'string' ? REDACTED : value)))
    } catch {
      return text.slice(0, 2000)
    }
  }
  if (/x-www-form-urlencoded/i.test(contentType)) return redactParams(new URLSearchParams(text))
  return text.slice(0, 2000)
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** The operation of the contract a request reached (the connector's, or the API's for the activity log), by method and path (else `METHOD path`). */
function operationOfRequest(method: string, url: string): string {
  const path = new URL(url).pathname.replace(/\/$/, '') || '/'
  const contract = loadContract()
  const op = indexConnectorOperations(contract.doc).find((o) => o.method === method && o.path === path) ?? contract.operations.find((o) => o.method === method && path.endsWith(o.path))
  return op?.operationId ?? `${method} ${path}`
}

/** RFC 8414 3.1 / RFC 9728 3.1: the well-known name inserted between the host and the path. */
const wellKnown = (url: string, name: string) => {
  const u = new URL(url)
  return `${u.origin}/.well-known/${name}${u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '')}`
}

class Skip extends Error {}

const cookieOf = (response: Response) => response.headers.get('set-cookie')?.split(';')[0] ?? ''
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)))

export interface ConnectorRunOptions {
  mcpUrl: string
  /** A user of the target who may consent (rules past sign-in are skipped without one). */
  user?: { email: string; password: string }
  /** The REST API of the same service (the activity-log rule reads it). */
  api?: { baseUrl: string; apiKey: string }
  /** Lets tests aim the rules at an in-process connector. */
  fetchFn?: typeof fetch
  rules?: ConnectorRule[]
  /** Called as each rule finishes (the terminal's live line). */
  onOutcome?: (outcome: ConnectorOutcome) => void
}

/** Runs the rules. */
export async function runConnectorRules({ mcpUrl, user, api, fetchFn = fetch, rules = connectorRules, onOutcome }: ConnectorRunOptions): Promise<ConnectorOutcome[]> {
  const secrets = [user?.password, api?.apiKey].filter((s): s is string => Boolean(s))
  let recording: { rule: string; exchanges: Exchange[] } | undefined
  let seq = 0
  /** fetch, recording each exchange for the rule running (the discovery a rule triggers is its evidence). */
  async function get(url: string, init: RequestInit = {}): Promise<Response> {
    const started = performance.now()
    const response = await fetchFn(url, { redirect: 'manual', ...init, signal: AbortSignal.timeout(15_000) })
    if (!recording) return response
    const method = (init.method ?? 'GET').toUpperCase()
    const requestHeaders = redactHeaders(new Headers(init.headers), secrets)
    const requestBody = typeof init.body === 'string' ? redactBody(init.body, requestHeaders['content-type'] ?? '') : undefined
    const responseHeaders = redactHeaders(response.headers, secrets)
    if (responseHeaders.location) responseHeaders.location = redactUrl(responseHeaders.location)
    const operationId = operationOfRequest(method, url)
    const shown = redactUrl(url)
    recording.exchanges.push({
      seq: ++seq,
      rule: recording.rule,
      operationId,
      method,
      url: shown,
      requestHeaders,
      ...(requestBody !== undefined ? { requestBody } : {}),
      status: response.status,
      responseHeaders,
      responseExcerpt: redactBody(await response.clone().text(), responseHeaders['content-type'] ?? '').slice(0, 2000),
      durationMs: Math.round(performance.now() - started),
      curl: ['curl -sS', `-X ${method}`, shellQuote(shown), ...Object.entries(requestHeaders).map(([k, v]) => `-H ${shellQuote(`${k}: ${v}`)}`), ...(requestBody !== undefined ? [`--data-raw ${shellQuote(requestBody)}`] : [])].join(' '),
      schema: [],
    })
    return response
  }
  let documents: Promise<{ resource: Record<string, any>; server: Record<string, any> }> | undefined
  const discovery = () =>
    (documents ??= (async () => {
      const challenge = await get(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })
      await challenge.arrayBuffer()
      const named = /resource_metadata="([^"]+)"/.exec(challenge.headers.get('www-authenticate') ?? '')?.[1]
      const resource = (await (await get(named ?? wellKnown(mcpUrl, 'oauth-protected-resource'))).json()) as Record<string, any>
      const issuer = String(resource.authorization_servers?.[0] ?? new URL(mcpUrl).origin)
      const server = (await (await get(wellKnown(issuer, 'oauth-authorization-server'))).json()) as Record<string, any>
      return { resource, server }
    })())
  async function register() {
    const { server } = await discovery()
    const redirect_uri = 'https://conformance.example.com/callback'
    const response = await get(server.registration_endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'shoptwin conformance', redirect_uris: [redirect_uri], token_endpoint_auth_method: 'none' }) })
    const body = (await response.json()) as { client_id?: string }
    if (!body.client_id) throw new Error(`registration failed: ${response.status}`)
    return { client_id: body.client_id, redirect_uri }
  }
  const outcomes: ConnectorOutcome[] = []
  for (const rule of rules) {
    const failures: ConnectorFailure[] = []
    const exchanges: Exchange[] = []
    recording = { rule: rule.id, exchanges }
    const started = performance.now()
    const finish = (status: ConnectorOutcome['status'], reason?: string) => {
      const outcome: ConnectorOutcome = {
        id: rule.id, title: rule.title, spec: rule.spec, level: rule.level, status, failures,
        ...(reason !== undefined ? { reason } : {}),
        exchanges, operations: [...new Set(exchanges.map((e) => e.operationId))], durationMs: Math.round(performance.now() - started),
      }
      outcomes.push(outcome)
      onOutcome?.(outcome)
    }
    const t: ConnectorRuleContext = {
      mcpUrl,
      ...(api ? { api: { ...api, baseUrl: api.baseUrl.replace(/\/+$/, '') } } : {}),
      fetch: get,
      discovery,
      check(ok, failure) {
        if (!ok) failures.push({ rule: rule.id, ...failure })
        return ok
      },
      register,
      skip(reason) {
        throw new Skip(reason)
      },
      async token(form) {
        const { server } = await discovery()
        const response = await get(server.token_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() })
        return { status: response.status, body: ((await response.json().catch(() => ({}))) ?? {}) as Record<string, any> }
      },
      async mcp(accessToken, method, params = {}) {
        const response = await get(mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
        const text = await response.text()
        let body: Record<string, any> | null = null
        try {
          body = text ? (JSON.parse(text) as Record<string, any>) : null
        } catch {
          body = null
        }
        return { status: response.status, body }
      },
      async authorize({ shops = 'first', tools }) {
        if (!user) throw new Skip('needs a user who may consent (--mcp-user, --mcp-password)')
        const { server } = await discovery()
        const client = await register()
        const verifier = randomBytes(32).toString('base64url')
        const url = new URL(server.authorization_endpoint)
        for (const [k, v] of Object.entries({ response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uri, state: 'conformance', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' })) url.searchParams.set(k, v)
        const signInPage = await (await get(url.href)).text()
        const requestId = hidden(signInPage, 'request_id')
        if (!requestId) throw new Error('the authorization page has no shoptwin sign-in form (request_id)')
        const signedIn = await get(new URL('/oauth/sign-in', url).href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ request_id: requestId, email: user.email, password: user.password }).toString() })
        await signedIn.arrayBuffer()
        const cookie = cookieOf(signedIn)
        if (signedIn.status !== 303 || !cookie) throw new Error(`sign-in refused (${signedIn.status})`)
        const consentPage = await (await get(new URL(signedIn.headers.get('location')!, url).href, { headers: { cookie } })).text()
        // The shops one by one (shoptwin's page also has the group value `@all`, "All shops").
        const allShops = [...consentPage.matchAll(/name="shop" value="([^"@][^"]*)"/g)].map((m) => m[1]!)
        const form = new URLSearchParams({ request_id: requestId, decision: 'allow' })
        for (const s of shops === 'all' ? allShops : allShops.slice(0, 1)) form.append('shop', s)
        for (const tool of tools) form.append('tool', tool)
        const answer = await get(url.href.split('?')[0]!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: form.toString() })
        await answer.arrayBuffer()
        const code = new URL(answer.headers.get('location') ?? 'about:blank').searchParams.get('code')
        if (!code) throw new Error(`consent gave no code (${answer.status} ${answer.headers.get('location')})`)
        return { ...client, code, verifier, shops: allShops }
      },
    }
    try {
      await rule.run(t)
      finish(failures.length ? 'fail' : 'pass')
    } catch (error) {
      if (error instanceof Skip) finish('skip', error.message)
      else finish('error', (error as Error).message)
    }
  }
  recording = undefined
  return outcomes
}

/**
 * `shoptwin conformance --mcp-url URL`: one line per rule as it finishes, the verdict, and with
 * `--report-dir` the REST suite's three reports (junit.xml, report.json, report.html); resolves to the
 * exit code (1 when a MUST rule failed, or with `--require-certified` for anything short of CERTIFIED).
 */
export async function runConnectorCli(argv: string[]): Promise<number> {
  let values
  const flags = { 'mcp-url': { type: 'string' }, 'mcp-user': { type: 'string' }, 'mcp-password': { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'report-dir': { type: 'string' }, 'require-certified': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const
  try {
    values = parseArgs({ args: argv, options: flags, strict: true }).values
  } catch (error) {
    process.stderr.write(`conformance: ${shortMessage(error as Error, Object.keys(flags))} (see shoptwin conformance --help)\n`)
    return 2
  }
  if (values.help) {
    process.stdout.write((await import('../../cli.ts')).USAGE)
    return 0
  }
  const mcpUrl = values['mcp-url']
  const email = values['mcp-user']
  const password = values['mcp-password'] ?? process.env.CONFORMANCE_MCP_PASSWORD
  if (typeof mcpUrl !== 'string' || !/^https?:\/\//.test(mcpUrl)) {
    process.stderr.write('conformance: --mcp-url must be the http(s) URL of the MCP endpoint\n')
    return 2
  }
  const baseUrl = values['base-url']
  const apiKey = values['api-key'] ?? process.env.CONFORMANCE_API_KEY
  const reportDir = values['report-dir']
  const unwritable = typeof reportDir === 'string' ? (await import('../../../mock/cli-flags.ts')).outputDirProblem('--report-dir', reportDir) : undefined
  if (unwritable) {
    process.stderr.write(`conformance: ${unwritable}\n`)
    return 2
  }
  const user = typeof email === 'string' && typeof password === 'string' ? { email, password } : undefined
  const api = typeof baseUrl === 'string' && typeof apiKey === 'string' ? { baseUrl, apiKey } : undefined
  const secrets = [password, apiKey].filter((s): s is string => typeof s === 'string' && s.length > 0)
  const { createTerminalReporter } = await import('../../reporters/terminal.ts')
  const { connectorRunReport, toRuleOutcome } = await import('./report.ts')
  const { commandLineOf, writeReports } = await import('../../cli.ts')
  const terminal = createTerminalReporter()
  const startedAt = new Date()
  terminal.start(mcpUrl, connectorRules.length)
  const outcomes = await runConnectorRules({ mcpUrl, ...(user ? { user } : {}), ...(api ? { api } : {}), onOutcome: (o) => terminal.outcome(toRuleOutcome(o, connectorRules.find((r) => r.id === o.id))) })
  const report = connectorRunReport({ mcpUrl, outcomes, rules: connectorRules, startedAt, hasUser: Boolean(user), hasApi: Boolean(api), requireCertified: values['require-certified'] === true })
  report.commandLine = commandLineOf(argv, secrets)
  const written = typeof reportDir === 'string' ? await writeReports(report, reportDir, secrets) : []
  terminal.summary(report, written)
  return report.exitCode
}
