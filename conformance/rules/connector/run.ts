/**
 * Runs the connector rules against a target's MCP URL (`shoptwin conformance --mcp-url URL
 * [--mcp-user EMAIL --mcp-password PW]`): one line per rule, exit 0 when every MUST rule passed or
 * was skipped. Most rules stop before sign-in; those past it (code single use, consent scoping,
 * revocation) need a user and drive a consent page with shoptwin's form fields, else are skipped; the
 * activity-log rule also needs the REST API (`--base-url`, `--api-key`).
 */
import { createHash, randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { activityBothDoors } from './activity-both-doors.ts'
import { codeSingleUse } from './code-single-use.ts'
import { consentScoping } from './consent-scoping.ts'
import { revocationEffective } from './revocation-effective.ts'
import { discoveryDocuments } from './discovery-documents.ts'
import { pkceRequired } from './pkce-required.ts'
import { redirectExact } from './redirect-exact.ts'
import { registrationRedirects } from './registration-redirects.ts'
import { tokenErrors } from './token-errors.ts'
import type { ConnectorFailure, ConnectorRule, ConnectorRuleContext } from './types.ts'
import { unauthorizedChallenge } from './unauthorized-challenge.ts'

export const connectorRules: ConnectorRule[] = [unauthorizedChallenge, discoveryDocuments, registrationRedirects, pkceRequired, redirectExact, tokenErrors, codeSingleUse, consentScoping, revocationEffective, activityBothDoors]

export interface ConnectorOutcome {
  id: string
  title: string
  level: 'MUST' | 'SHOULD'
  status: 'pass' | 'fail' | 'skip' | 'error'
  failures: ConnectorFailure[]
  reason?: string
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
}

/** Runs the rules. */
export async function runConnectorRules({ mcpUrl, user, api, fetchFn = fetch, rules = connectorRules }: ConnectorRunOptions): Promise<ConnectorOutcome[]> {
  const get = (url: string, init: RequestInit = {}) => fetchFn(url, { redirect: 'manual', ...init, signal: AbortSignal.timeout(15_000) })
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
        const allShops = [...consentPage.matchAll(/name="shop" value="([^"]+)"/g)].map((m) => m[1]!)
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
      outcomes.push({ id: rule.id, title: rule.title, level: rule.level, status: failures.length ? 'fail' : 'pass', failures })
    } catch (error) {
      if (error instanceof Skip) {
        outcomes.push({ id: rule.id, title: rule.title, level: rule.level, status: 'skip', failures, reason: error.message })
        continue
      }
      outcomes.push({ id: rule.id, title: rule.title, level: rule.level, status: 'error', failures, reason: (error as Error).message })
    }
  }
  return outcomes
}

/** `shoptwin conformance --mcp-url URL`: prints one line per rule and its failures; resolves to the exit code. */
export async function runConnectorCli(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { 'mcp-url': { type: 'string' }, 'mcp-user': { type: 'string' }, 'mcp-password': { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' } }, strict: false })
  const mcpUrl = values['mcp-url']
  const email = values['mcp-user']
  const password = values['mcp-password'] ?? process.env.CONFORMANCE_MCP_PASSWORD
  if (typeof mcpUrl !== 'string' || !/^https?:\/\//.test(mcpUrl)) {
    process.stderr.write('conformance: --mcp-url must be the http(s) URL of the MCP endpoint\n')
    return 2
  }
  const baseUrl = values['base-url']
  const apiKey = values['api-key'] ?? process.env.CONFORMANCE_API_KEY
  const outcomes = await runConnectorRules({
    mcpUrl,
    ...(typeof email === 'string' && typeof password === 'string' ? { user: { email, password } } : {}),
    ...(typeof baseUrl === 'string' && typeof apiKey === 'string' ? { api: { baseUrl, apiKey } } : {}),
  })
  for (const o of outcomes) {
    process.stdout.write(`${o.status.toUpperCase().padEnd(5)} ${o.id.padEnd(36)} ${o.title}\n`)
    for (const f of o.failures) process.stdout.write(`      ${f.message}: expected ${f.expected}, received ${f.received}\n`)
    if (o.reason) process.stdout.write(`      ${o.status === 'skip' ? 'skipped' : 'could not run to its end'}: ${o.reason}\n`)
  }
  const failed = outcomes.filter((o) => o.level === 'MUST' && (o.status === 'fail' || o.status === 'error')).length
  const passed = outcomes.filter((o) => o.status === 'pass').length
  const skipped = outcomes.filter((o) => o.status === 'skip').length
  process.stdout.write(`\n${passed} of ${outcomes.length} connector rules passed, ${failed} failed, ${skipped} skipped against ${mcpUrl}\n`)
  return failed ? 1 : 0
}
