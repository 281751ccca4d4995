/**
 * spec: Authentication 6. The connector rules of `shoptwin conformance --mcp-url` (conformance/rules/
 * connector/): every rule passes against shoptwin's connector, and each is killed by a mutation of it
 * (a fetch wrapper that makes the connector misbehave the way a faulty server would).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { main, writeReports } from '../conformance/cli.ts'
import { startMock } from '../conformance/testing/harness.ts'
import { connectorRunReport } from '../conformance/rules/connector/report.ts'
import { connectorRules, runConnectorRules } from '../conformance/rules/connector/run.ts'
import { connectorTarget, type Mutation } from './connector-helpers.ts'

const MCP = 'https://mcp.example.com/mcp'
const S256 = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'

const target = connectorTarget

const withJson = async (response: Response, edit: (body: any) => any, status = response.status) => {
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  return new Response(JSON.stringify(edit(await response.json())), { status, headers })
}

const MUTATIONS: Record<string, Mutation> = {
  // A 401 without the Bearer challenge.
  'connector.unauthorized-challenge': async (request, next) => {
    const response = await next(request)
    if (response.status !== 401) return response
    const headers = new Headers(response.headers)
    headers.delete('www-authenticate')
    return new Response(response.body, { status: 401, headers })
  },
  // A 405 without Allow, as a server that forgets RFC 9110's MUST answers.
  'connector.stream-methods': async (request, next) => {
    const response = await next(request)
    if (response.status !== 405 || new URL(request.url).pathname !== '/mcp') return response
    const headers = new Headers(response.headers)
    headers.delete('allow')
    return new Response(response.body, { status: 405, headers })
  },
  // Metadata that offers the plain PKCE method too.
  'connector.discovery-documents': async (request, next) => {
    const response = await next(request)
    return new URL(request.url).pathname === '/.well-known/oauth-authorization-server' ? withJson(response, (b) => ({ ...b, code_challenge_methods_supported: ['S256', 'plain'] })) : response
  },
  // Registration that takes any http redirect URI.
  'connector.registration-redirects': async (request, next) => {
    if (new URL(request.url).pathname !== '/oauth/register') return next(request)
    const text = (await request.text()).replaceAll('http://conformance.example.com', 'https://conformance.example.com')
    return next(new Request(request.url, { method: 'POST', headers: request.headers, body: text }))
  },
  // An authorization endpoint that proceeds without PKCE (or with plain).
  'connector.pkce-required': async (request, next) => {
    const url = new URL(request.url)
    if (url.pathname === '/oauth/authorize' && request.method === 'GET' && url.searchParams.has('client_id')) {
      url.searchParams.set('code_challenge', S256)
      url.searchParams.set('code_challenge_method', 'S256')
      return next(new Request(url, request))
    }
    return next(request)
  },
  // An authorization endpoint that takes the plain method as S256.
  'connector.pkce-s256-only': async (request, next) => {
    const url = new URL(request.url)
    if (url.pathname === '/oauth/authorize' && request.method === 'GET' && url.searchParams.get('code_challenge_method') === 'plain') {
      url.searchParams.set('code_challenge', S256)
      url.searchParams.set('code_challenge_method', 'S256')
      return next(new Request(url, request))
    }
    return next(request)
  },
  // An authorization endpoint that sends its errors to whatever redirect URI it was given.
  'connector.redirect-exact': async (request, next) => {
    const url = new URL(request.url)
    const redirect = url.searchParams.get('redirect_uri')
    if (url.pathname === '/oauth/authorize' && redirect && (redirect.endsWith('/extra') || redirect.includes('attacker.'))) return new Response(null, { status: 302, headers: { location: `${redirect}?error=invalid_request&state=s` } })
    return next(request)
  },
  // A token endpoint that answers a repeated code with the first answer again.
  'connector.code-single-use': (() => {
    const seen = new Map<string, string>()
    return async (request: Request, next: (r: Request) => Promise<Response>) => {
      if (new URL(request.url).pathname !== '/oauth/token') return next(request)
      const text = await request.text()
      const code = new URLSearchParams(text).get('code')
      if (code && seen.has(code)) return new Response(seen.get(code)!, { status: 200, headers: { 'content-type': 'application/json' } })
      const response = await next(new Request(request.url, { method: 'POST', headers: request.headers, body: text }))
      if (code && response.status === 200) seen.set(code, await response.clone().text())
      return response
    }
  })(),
  // Consent that grants one more tool than the user ticked.
  'connector.consent-scoping': async (request, next) => {
    if (new URL(request.url).pathname !== '/oauth/authorize' || request.method !== 'POST') return next(request)
    const form = new URLSearchParams(await request.text())
    form.append('tool', 'listAccountShops')
    return next(new Request(request.url, { method: 'POST', headers: request.headers, body: form.toString() }))
  },
  // A revocation endpoint that answers 200 and revokes nothing.
  'connector.revocation-effective': async (request, next) => (new URL(request.url).pathname === '/oauth/revoke' ? new Response(null, { status: 200 }) : next(request)),
  // An activity log that records API-key actions only.
  'connector.activity-both-doors': async (request, next) => {
    const response = await next(request)
    return new URL(request.url).pathname === '/account/activity' ? withJson(response, (b) => ({ ...b, data: b.data.filter((e: { actor: { kind: string } }) => e.actor.kind !== 'connector') })) : response
  },
  // invalid_client answered with 400 instead of 401.
  'connector.token-errors': async (request, next) => {
    const response = await next(request)
    return new URL(request.url).pathname === '/oauth/token' && response.status === 401 ? withJson(response, (b) => b, 400) : response
  },
}

describe('connector conformance rules (shoptwin conformance --mcp-url)', () => {
  it('every rule passes against shoptwin\'s connector', async () => {
    const outcomes = await runConnectorRules({ mcpUrl: MCP, ...target() })
    expect(outcomes.map((o) => [o.id, o.status, o.failures.map((f) => f.message), o.reason])).toEqual(connectorRules.map((r) => [r.id, 'pass', [], undefined]))
  })
  it('without a user the rules past sign-in are skipped, not failed', async () => {
    const outcomes = await runConnectorRules({ mcpUrl: MCP, fetchFn: target().fetchFn })
    expect(outcomes.filter((o) => o.status === 'skip').map((o) => o.id)).toEqual(['connector.code-single-use', 'connector.consent-scoping', 'connector.revocation-effective', 'connector.activity-both-doors'])
    expect(outcomes.every((o) => o.status === 'pass' || o.status === 'skip')).toBe(true)
  })
  it('every rule has a killing mutation', () => {
    expect(Object.keys(MUTATIONS).sort()).toEqual(connectorRules.map((r) => r.id).sort())
  })
  it.each(Object.keys(MUTATIONS))('%s is killed by its mutation', async (id) => {
    const rule = connectorRules.find((r) => r.id === id)!
    const [outcome] = await runConnectorRules({ mcpUrl: MCP, ...target(MUTATIONS[id]), rules: [rule] })
    expect(outcome!.status).toBe('fail')
  })
})

describe('connector conformance reports (shoptwin conformance --mcp-url --report-dir)', () => {
  const dirs: string[] = []
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))))
  const startedAt = new Date('2026-08-01T00:00:00Z')

  /** Runs the rules against a target, writes the three reports, and reads them back. */
  async function run(given: Partial<ReturnType<typeof target>> & { fetchFn: typeof fetch }, requireCertified = false) {
    const outcomes = await runConnectorRules({ mcpUrl: MCP, ...given })
    const report = connectorRunReport({ mcpUrl: MCP, outcomes, rules: connectorRules, startedAt, hasUser: Boolean(given.user), hasApi: Boolean(given.api), requireCertified })
    const dir = await mkdtemp(join(tmpdir(), 'shoptwin-connector-report-'))
    dirs.push(dir)
    const secrets = [given.user?.password, given.api?.apiKey].filter((x): x is string => Boolean(x))
    await writeReports(report, dir, secrets)
    const files = Object.fromEntries(await Promise.all(['junit.xml', 'report.json', 'report.html'].map(async (f) => [f, await readFile(join(dir, f), 'utf8')] as const)))
    return { outcomes, report, files, json: JSON.parse(files['report.json']!) }
  }

  /** What no report may hold: the password, the API key, tokens, codes, sessions, pending requests. */
  const SECRET = /shoptwin-demo|demo-key|(stw_at_|stw_rt_|ses_|req_|code_)[A-Za-z0-9_-]{43}/

  it('a full run (user and API given) is CERTIFIED over the operations its rules reach, in all three files, with no secret in them', async () => {
    const { report, files, json, outcomes } = await run(target())
    expect(report.verdictText).toBe(`CERTIFIED: every MUST rule passed, 13/13 operations the connector rules check exercised; no rule checks 3 more of the contract's connector operations (GET /.well-known/oauth-protected-resource, GET /oauth/connections, POST /oauth/connections/revoke)`)
    expect(json.verdict).toBe('certified')
    expect(json.door).toBe('connector')
    expect(files['junit.xml']).toMatch(/<testsuites name="[^"]+" tests="12" failures="0" errors="0">/)
    expect(files['report.html']).toContain('<b>CERTIFIED</b>')
    expect(files['report.html']).toContain('Assistant-connector conformance report')
    for (const [name, text] of Object.entries(files)) expect(SECRET.exec(text)?.[0], name).toBeUndefined()
    expect(outcomes.every((o) => o.exchanges.length > 0)).toBe(true)
  })

  it('each rule declares exactly the operations its requests reach on shoptwin (what the certificate covers)', async () => {
    const { outcomes } = await run(target())
    expect(outcomes.map((o) => [o.id, [...o.operations].sort()])).toEqual(connectorRules.map((r) => [r.id, [...r.operations].sort()]))
  })

  it('without a user or the API: rules past sign-in are MUST rules not run, never passes; PASSED, NOT CERTIFIED; --require-certified exits 1', async () => {
    const { report, files, json } = await run({ fetchFn: target().fetchFn }, true)
    expect(report.summary).toMatchObject({ passed: 8, skipped: 4, failed: 0 })
    expect(report.verdict).toBe('passed, not certified')
    expect(report.verdictText).toMatch(/^PASSED, NOT CERTIFIED: 3 MUST rules not run \(needs a user who may consent .*\), 8\/13 operations the connector rules check; no rule checks 3 more of the contract's connector operations \(.*\)$/)
    expect(json.incomplete.mustNotRun.map((m: { id: string }) => m.id)).toEqual(['connector.code-single-use', 'connector.consent-scoping', 'connector.activity-both-doors'])
    expect(report.exitCode).toBe(1)
    expect(files['junit.xml']).toMatch(/tests="12" failures="0" errors="0" skipped="4"/)
    expect(files['junit.xml']).toContain('<skipped message="needs a user who may consent (--mcp-user, --mcp-password)"/>')
    expect(files['report.html']).toContain('<b>PASSED, NOT CERTIFIED</b>')
    expect(files['report.html']).toContain('none (--mcp-user): the rules past sign-in were not run')
  })

  it('a failing rule makes it NOT CERTIFIED: a JUnit failure, exit 1, and its section open in the HTML', async () => {
    const { report, files } = await run(target(MUTATIONS['connector.token-errors']))
    expect(report.verdictText).toBe('NOT CERTIFIED: 1 MUST rule failed')
    expect(report.exitCode).toBe(1)
    expect(files['junit.xml']).toMatch(/<failure message="[^"]*invalid_client[^"]*" type="fail">/)
    expect(files['report.html']).toContain('<section id="rule-connector.token-errors" class="rule"><details open>')
  })
})

describe('shoptwin conformance --mcp-url --report-dir against a listening server (127.0.0.1, port 0)', () => {
  it('prints a line per rule and the verdict, writes the three reports, and redacts the password and the key', { timeout: 60_000 }, async () => {
    const mock = await startMock({ rateLimit: false })
    const dir = await mkdtemp(join(tmpdir(), 'shoptwin-connector-cli-'))
    const printed: string[] = []
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed.push(String(chunk))
      return true
    })
    try {
      const { result: { users } } = (await (await fetch(`${mock.url}/__admin/connector/users`, { method: 'POST' })).json()) as { result: { users: Array<{ email: string; password: string }> } }
      const { email, password } = users[0]!
      const code = await main(['--mcp-url', `${mock.url}/mcp`, '--mcp-user', email, '--mcp-password', password, '--base-url', mock.url, '--api-key', 'demo-key', '--report-dir', dir, '--require-certified'])
      write.mockRestore()
      const out = printed.join('')
      expect(code).toBe(0)
      expect(out).toContain('[12/12] PASS connector.activity-both-doors [MUST]')
      expect(out).toContain('CERTIFIED: every MUST rule passed, 13/13 operations the connector rules check exercised; no rule checks 3 more')
      const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'))
      expect(json.commandLine).toContain('--mcp-password <redacted>')
      expect(json.commandLine).toContain('--api-key <redacted>')
      for (const name of ['junit.xml', 'report.json', 'report.html']) {
        const text = await readFile(join(dir, name), 'utf8')
        expect(text.includes(password) || text.includes('demo-key'), name).toBe(false)
      }
    } finally {
      write.mockRestore()
      await mock.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
