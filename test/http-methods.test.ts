/**
 * Every method on every path (issue 24, item 1): the contract's paths, the connector's (OAuth, MCP,
 * well-known documents) and the control API's, each called with GET, POST, PUT, PATCH, DELETE, HEAD,
 * OPTIONS, TRACE, CONNECT, PROPFIND and an unknown token, on a real listening server (raw node:http
 * and raw sockets: fetch refuses TRACE and CONNECT) and through the MSW handlers (every method fetch
 * can build). Never a 5xx; a documented path's other methods, those no path implements included, get
 * 405 with `Allow`; HEAD answers as GET without a body; OPTIONS lists `Allow`; every refusal is a JSON
 * `{error}` naming the method. The policy and its RFC 9110 sources: mock/methods.ts.
 */
import { request as httpRequest, Agent } from 'node:http'
import { connect } from 'node:net'
import { getResponse, type HttpHandler } from 'msw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { indexConnectorOperations } from '../openapi/index.ts'
import { adminMethods, createAdminHandlers } from '../mock/admin.ts'
import { CONNECTOR_METHODS, createConnectorHandlers } from '../mock/connector/index.ts'
import { createHandlers, createMockState, createServer, type MockServer } from '../mock/index.ts'
import { allowedMethods } from '../mock/methods.ts'

const state = createMockState({ seed: 42, now: '2026-03-10T12:00:00.000Z', rateLimit: false })
const { contract } = state
const shop = state.world.shops.find((s) => s.plan === 'scale' && s.is_active)!
const KEYED = { 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id }

type Door = 'api' | 'connector' | 'admin'
interface PathCase {
  door: Door
  /** The path as called (parameters filled). */
  path: string
  /** The methods the path documents. */
  documented: string[]
}

// The contract's declaration of these answers (x-undocumented-methods → components/responses/MethodNotAllowed).
const declared = (contract.doc as unknown as { 'x-undocumented-methods': { response: { $ref: string } }; components: { responses: Record<string, any> } })
const methodNotAllowed = declared.components.responses[declared['x-undocumented-methods'].response.$ref.split('/').pop()!]
const validate405 = contract.validators.compile('MethodNotAllowed', methodNotAllowed.content['application/json'].schema)

const fill = (template: string) => template.replace(/\{[^}]+\}/g, 'sweep-key')
const group = (entries: Array<readonly [string, string]>, door: Door): PathCase[] => {
  const byPath = new Map<string, string[]>()
  for (const [path, method] of entries) byPath.set(path, [...(byPath.get(path) ?? []), method.toUpperCase()])
  return [...byPath].map(([path, documented]) => ({ door, path: fill(path), documented }))
}
const cases: PathCase[] = [
  ...group(contract.operations.map((op) => [op.path, op.method] as const), 'api'),
  ...group(Object.entries(CONNECTOR_METHODS).flatMap(([path, methods]) => methods.map((m) => [path, m] as const)), 'connector'),
  ...group(adminMethods(state.admin), 'admin'),
]
const SWEPT = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'FOO', 'PROPFIND']

/** The methods a path's answer must list in Allow. */
const allowOf = (c: PathCase) => allowedMethods(c.documented)
/** The documented writes of the control API move its state (a fault would make later answers 5xx on purpose): not sent. */
const skipped = (c: PathCase, method: string) => c.door === 'admin' && c.documented.includes(method) && method !== 'GET'

interface Answer {
  status: number
  headers: Record<string, string>
  text: string
}

/** What is wrong with one answer to `method` on a path. */
function problemsOf(c: PathCase, method: string, answer: Answer, getAnswer?: Answer): string[] {
  const where = `${method} ${c.path}`
  const out: string[] = []
  if (answer.status >= 500) out.push(`${where}: ${answer.status} ${answer.text.slice(0, 200)}`)
  const allow = allowOf(c)
  const documented = c.documented.includes(method)
  const refusedWith = (status: number) => {
    if (answer.status !== status) return out.push(`${where}: ${answer.status}, expected ${status}`)
    if (method === 'HEAD') return answer.text === '' || out.push(`${where}: HEAD answered with a body`)
    let body: Record<string, unknown> | undefined
    try {
      body = JSON.parse(answer.text)
    } catch {
      return out.push(`${where}: ${status} body is not JSON: ${answer.text.slice(0, 100)}`)
    }
    // The API's and the control API's `{error}`; the connector's OAuth error (`error` + `error_description`) or, on /mcp, JSON-RPC.
    const message = [body?.error, body?.error_description, (body?.error as { message?: unknown })?.message].find((m) => typeof m === 'string' && m.includes(method))
    if (!message) out.push(`${where}: ${status} body does not name the method: ${answer.text.slice(0, 200)}`)
    if (c.door !== 'connector' && Object.keys(body ?? {}).join() !== 'error') out.push(`${where}: ${status} body is not {error}: ${answer.text.slice(0, 200)}`)
    if (c.door !== 'connector' && !validate405(body)) out.push(`${where}: ${status} body does not validate against the contract's MethodNotAllowed`)
    if (!/^application\/json/.test(answer.headers['content-type'] ?? '')) out.push(`${where}: ${status} content-type ${answer.headers['content-type']}`)
  }
  if (method === 'OPTIONS') {
    if (answer.status !== 204) out.push(`${where}: ${answer.status}, expected 204`)
    if (answer.headers.allow !== allow.join(', ')) out.push(`${where}: Allow ${answer.headers.allow}, expected ${allow.join(', ')}`)
  } else if (method === 'HEAD' && c.documented.includes('GET')) {
    if (answer.text !== '') out.push(`${where}: HEAD answered with a body`)
    if (getAnswer && answer.status !== getAnswer.status) out.push(`${where}: HEAD ${answer.status}, GET ${getAnswer.status}`)
  } else if (!documented) {
    refusedWith(405)
    if (answer.headers.allow !== allow.join(', ')) out.push(`${where}: Allow ${answer.headers.allow}, expected ${allow.join(', ')}`)
  } else if ((answer.status === 405 || answer.status === 501) && !(c.path === '/mcp' && method !== 'POST')) out.push(`${where}: documented, yet ${answer.status}`)
  return out
}

describe('methods: the lists the sweep uses are the contract\'s (issue 24, item 1)', () => {
  it('the contract declares the answer to an undocumented method: 405, a required Allow header, the {error} body, inferred', () => {
    expect(methodNotAllowed.headers.Allow.required).toBe(true)
    expect(methodNotAllowed['x-inferred']).toBe(true)
    expect(validate405({ error: 'Method PUT is not allowed on /shop/sps; allowed: GET, HEAD, OPTIONS' })).toBe(true)
    expect(validate405({ message: 'nope' })).toBe(false)
  })

  it('the connector\'s method table is the contract\'s connector operations (GET and DELETE /mcp documented as 405)', () => {
    const documented = indexConnectorOperations(contract.doc).map((o) => `${o.method} ${o.path}`).sort()
    const table = Object.entries(CONNECTOR_METHODS).flatMap(([path, methods]) => methods.map((m) => `${m} ${path}`))
    expect(documented).toEqual([...table, 'GET /mcp', 'DELETE /mcp'].sort())
  })
})

describe('methods: a real listening server, raw requests (issue 24, item 1; RFC 9110 9.1, 9.3.2, 9.3.7, 15.5.6)', () => {
  let mock: MockServer
  let port: number
  const agent = new Agent({ keepAlive: true, maxSockets: 4 })
  beforeAll(async () => {
    mock = createServer({ state, log: () => {} })
    port = Number(new URL(await mock.listen(0, '127.0.0.1')).port)
  })
  afterAll(async () => {
    agent.destroy()
    await mock.close()
  })

  const send = (method: string, path: string, headers: Record<string, string> = KEYED): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, text: Buffer.concat(chunks).toString('utf8') }))
      })
      req.on('error', reject)
      req.end()
    })

  /** Bytes on a fresh socket (methods node's client will not send, such as an unknown token): the answer parsed. */
  const sendRaw = (method: string, path: string): Promise<Answer> =>
    new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(`${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-api-key: demo-enterprise-key\r\n\r\n`))
      let out = ''
      socket.setEncoding('utf8')
      socket.on('data', (d: string) => (out += d))
      socket.on('close', () => {
        const [head = '', ...rest] = out.split('\r\n\r\n')
        const [statusLine = '', ...lines] = head.split('\r\n')
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
        resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, text: rest.join('\r\n\r\n') })
      })
      socket.on('error', () => resolve({ status: 0, headers: {}, text: out }))
    })

  it(`every path (${cases.length}) x ${SWEPT.join(', ')}: never 5xx, 405 with Allow naming the method, HEAD as GET, OPTIONS with Allow`, async () => {
    const problems: string[] = []
    let sent = 0
    for (const c of cases) {
      const getAnswer = c.documented.includes('GET') ? await send('GET', c.path) : undefined
      for (const method of SWEPT) {
        if (skipped(c, method)) continue
        const answer = method === 'FOO' ? await sendRaw(method, c.path) : await send(method, c.path)
        sent++
        problems.push(...problemsOf(c, method, answer, getAnswer))
      }
    }
    expect(problems).toEqual([])
    expect(sent).toBeGreaterThan(cases.length * 8)
  })

  it('CONNECT (which node hands over as a tunnel) gets 405 with Allow on a known path; on an unknown path (or none) CONNECT, TRACE and FOO get 404 {error}; the server goes on', async () => {
    const connectAnswer = await sendRaw('CONNECT', '/shop/sps')
    expect([connectAnswer.status, connectAnswer.headers.allow]).toEqual([405, 'GET, HEAD, OPTIONS'])
    expect(JSON.parse(connectAnswer.text)).toEqual({ error: 'Method CONNECT is not implemented by this server, nor allowed on /shop/sps; allowed: GET, HEAD, OPTIONS' })
    for (const [method, path] of [['CONNECT', '127.0.0.1:443'], ['FOO', '/nowhere'], ['TRACE', '/nowhere'], ['TRACE', '/oauth/nowhere']] as const) {
      const answer = await sendRaw(method, path)
      expect(answer.status, `${method} ${path}`).toBe(404)
      expect(typeof JSON.parse(answer.text).error).toBe('string')
    }
    expect((await send('GET', '/health', {})).status).toBe(200)
  })

  it('a known method on an unknown path is still 404 {error}; OPTIONS there passes the CORS preflight', async () => {
    const answer = await send('PUT', '/nowhere')
    expect(answer.status).toBe(404)
    expect(JSON.parse(answer.text)).toEqual({ error: 'No operation at PUT /nowhere' })
    expect((await send('OPTIONS', '/nowhere')).status).toBe(204)
  })

  it('a 405 is in the request journal like a 404, with the method called', async () => {
    await send('PATCH', '/shop/sps')
    const entry = (await state.admin.requests({ limit: 1 })).at(-1)!
    expect([entry.method, entry.path, entry.status, entry.operationId]).toEqual(['PATCH', '/shop/sps', 405, null])
  })
})

describe('methods: the MSW handlers, in-process (issue 24, item 1)', () => {
  const API = 'https://api.methods.test'
  const MCP = 'https://mcp.methods.test'
  const handlers: HttpHandler[] = [...createHandlers(state, { baseUrl: API }), ...createAdminHandlers(state, { baseUrl: API }), ...createConnectorHandlers(state, { baseUrl: MCP })]

  async function call(method: string, c: PathCase): Promise<Answer | undefined> {
    const origin = c.door === 'connector' ? MCP : API
    const response = await getResponse(handlers, new Request(`${origin}${c.path}`, { method, headers: KEYED }))
    if (!response) return undefined
    return { status: response.status, headers: Object.fromEntries(response.headers), text: method === 'HEAD' ? (response.body ? await response.text() : '') : await response.text() }
  }

  it('fetch cannot build TRACE or CONNECT at all (so no MSW handler ever sees them; the browser\'s fetch refuses them too)', () => {
    for (const method of ['TRACE', 'CONNECT']) expect(() => new Request(`${API}/shop/sps`, { method })).toThrow(TypeError)
  })

  it(`every path x every method fetch can send: the same answers as the server`, async () => {
    const problems: string[] = []
    for (const c of cases) {
      const getAnswer = c.documented.includes('GET') ? await call('GET', c) : undefined
      for (const method of SWEPT.filter((m) => m !== 'TRACE')) {
        if (skipped(c, method)) continue
        const answer = await call(method, c)
        if (!answer) problems.push(`${method} ${c.path}: no MSW handler answered`)
        else problems.push(...problemsOf(c, method, answer, getAnswer))
      }
    }
    expect(problems).toEqual([])
  })

  it('a path none of the groups knows is left to the next handlers (onUnhandledFrame), whatever the method', async () => {
    for (const method of ['GET', 'PUT', 'FOO']) expect(await getResponse(handlers, new Request(`${API}/nowhere`, { method }))).toBeUndefined()
  })
})
