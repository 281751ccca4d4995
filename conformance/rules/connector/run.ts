/**
 * Runs the connector rules against a target's MCP URL (`shoptwin conformance --mcp-url URL`): one
 * line per rule, exit 0 when every MUST rule passed. The rules need no user: they stop before sign-in.
 */
import { parseArgs } from 'node:util'
import { discoveryDocuments } from './discovery-documents.ts'
import { pkceRequired } from './pkce-required.ts'
import { redirectExact } from './redirect-exact.ts'
import { registrationRedirects } from './registration-redirects.ts'
import { tokenErrors } from './token-errors.ts'
import type { ConnectorFailure, ConnectorRule, ConnectorRuleContext } from './types.ts'
import { unauthorizedChallenge } from './unauthorized-challenge.ts'

export const connectorRules: ConnectorRule[] = [unauthorizedChallenge, discoveryDocuments, registrationRedirects, pkceRequired, redirectExact, tokenErrors]

export interface ConnectorOutcome {
  id: string
  title: string
  level: 'MUST' | 'SHOULD'
  status: 'pass' | 'fail' | 'error'
  failures: ConnectorFailure[]
  reason?: string
}

/** RFC 8414 3.1 / RFC 9728 3.1: the well-known name inserted between the host and the path. */
const wellKnown = (url: string, name: string) => {
  const u = new URL(url)
  return `${u.origin}/.well-known/${name}${u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '')}`
}

/** Runs the rules; `fetchFn` lets tests aim them at an in-process connector. */
export async function runConnectorRules({ mcpUrl, fetchFn = fetch, rules = connectorRules }: { mcpUrl: string; fetchFn?: typeof fetch; rules?: ConnectorRule[] }): Promise<ConnectorOutcome[]> {
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
  const outcomes: ConnectorOutcome[] = []
  for (const rule of rules) {
    const failures: ConnectorFailure[] = []
    const t: ConnectorRuleContext = {
      mcpUrl,
      fetch: get,
      discovery,
      check(ok, failure) {
        if (!ok) failures.push({ rule: rule.id, ...failure })
        return ok
      },
      async register() {
        const { server } = await discovery()
        const redirect_uri = 'https://conformance.example.com/callback'
        const response = await get(server.registration_endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'shoptwin conformance', redirect_uris: [redirect_uri], token_endpoint_auth_method: 'none' }) })
        const body = (await response.json()) as { client_id?: string }
        if (!body.client_id) throw new Error(`registration failed: ${response.status}`)
        return { client_id: body.client_id, redirect_uri }
      },
    }
    try {
      await rule.run(t)
      outcomes.push({ id: rule.id, title: rule.title, level: rule.level, status: failures.length ? 'fail' : 'pass', failures })
    } catch (error) {
      outcomes.push({ id: rule.id, title: rule.title, level: rule.level, status: 'error', failures, reason: (error as Error).message })
    }
  }
  return outcomes
}

/** `shoptwin conformance --mcp-url URL`: prints one line per rule and its failures; resolves to the exit code. */
export async function runConnectorCli(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { 'mcp-url': { type: 'string' } }, strict: false })
  const mcpUrl = values['mcp-url']
  if (typeof mcpUrl !== 'string' || !/^https?:\/\//.test(mcpUrl)) {
    process.stderr.write('conformance: --mcp-url must be the http(s) URL of the MCP endpoint\n')
    return 2
  }
  const outcomes = await runConnectorRules({ mcpUrl })
  for (const o of outcomes) {
    process.stdout.write(`${o.status.toUpperCase().padEnd(5)} ${o.id.padEnd(36)} ${o.title}\n`)
    for (const f of o.failures) process.stdout.write(`      ${f.message}: expected ${f.expected}, received ${f.received}\n`)
    if (o.reason) process.stdout.write(`      could not run to its end: ${o.reason}\n`)
  }
  const failed = outcomes.filter((o) => o.level === 'MUST' && o.status !== 'pass').length
  process.stdout.write(`\n${outcomes.length - failed} of ${outcomes.length} connector rules passed against ${mcpUrl}\n`)
  return failed ? 1 : 0
}
