/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance server`) against the
 * connector. Its server scenarios connect without OAuth, so this script does the OAuth dance itself
 * (register, sign in, consent to every shop and tool, exchange) and puts a loopback proxy in front of
 * the connector that adds the access token to every request (Host and Origin passed as sent); the
 * connector itself stays strict.
 * Scenarios for features the connector does not offer are in ./expected-failures.yml, one reason each.
 *
 *   npm run conformance:mcp            (exit 0: every other scenario passed, the baseline is current)
 */
import { spawn } from 'node:child_process'
import { createServer as createHttpServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { createServer } from '../../server.ts'
import { connectorTools } from '../tools.ts'
import { s256 } from '../secrets.ts'

const REDIRECT = 'http://127.0.0.1:1/callback'

/** Register, sign in and consent to everything, exchange the code: an access token for the proxy. */
async function accessToken(base: string, state: ReturnType<typeof createServer>['state']): Promise<string> {
  const user = state.connector.data.users[0]!
  const client = (await (await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'MCP conformance suite', redirect_uris: [REDIRECT] }) })).json()) as { client_id: string }
  const verifier = 'conformance-verifier-0123456789-abcdefghijklmnopqrstuvwxyz'
  const authorize = new URL(`${base}/oauth/authorize`)
  for (const [k, v] of Object.entries({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: await s256(verifier), code_challenge_method: 'S256' })) authorize.searchParams.set(k, v)
  const page = await (await fetch(authorize)).text()
  const requestId = /name="request_id" value="([^"]+)"/.exec(page)![1]!
  const signedIn = await fetch(`${base}/oauth/sign-in`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ request_id: requestId, email: user.email, password: user.password }) })
  const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!
  const form = new URLSearchParams({ request_id: requestId, decision: 'allow' })
  for (const s of state.world.shops) form.append('shop', s.shop_id)
  for (const t of connectorTools(state.contract)) form.append('tool', t.name)
  const answer = await fetch(`${base}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: form })
  const code = new URL(answer.headers.get('location')!).searchParams.get('code')!
  const tokens = (await (await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id, redirect_uri: REDIRECT }) })).json()) as { access_token: string }
  return tokens.access_token
}

/** Starts the mock and the token-adding proxy; resolves with the proxy's MCP URL and a stop function. */
export async function startConnectorForSuite(): Promise<{ url: string; stop: () => Promise<void> }> {
  const mock = createServer({ stateOptions: { seed: 42, rateLimit: false } })
  const base = await mock.listen(0, '127.0.0.1')
  const token = await accessToken(base, mock.state)
  const target = new URL(base)
  const proxy = createHttpServer((req, res) => {
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const { port } = proxy.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      proxy.closeAllConnections()
      await new Promise((resolve) => proxy.close(resolve))
      await mock.close()
    },
  }
}

/** Runs the suite (all scenarios, or `scenarios`) with the expected-failures baseline; resolves with its exit code and output. */
export async function runMcpConformance(scenarios: string[] = [], { verbose = false } = {}): Promise<{ code: number; output: string }> {
  const { url, stop } = await startConnectorForSuite()
  const baseline = fileURLToPath(new URL('./expected-failures.yml', import.meta.url))
  const bin = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url))
  try {
    const runs = scenarios.length ? scenarios.map((s) => ['--scenario', s]) : [[]]
    let output = ''
    let code = 0
    for (const extra of runs) {
      const result = await new Promise<{ code: number; output: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, 'server', '--url', url, '--expected-failures', baseline, ...extra, ...(verbose ? ['--verbose'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] })
        let text = ''
        child.stdout.on('data', (d: Buffer) => (text += d.toString()))
        child.stderr.on('data', (d: Buffer) => (text += d.toString()))
        child.on('close', (c) => resolve({ code: c ?? 1, output: text }))
      })
      output += result.output
      code ||= result.code
    }
    return { code, output }
  } finally {
    await stop()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const { code, output } = await runMcpConformance(args.filter((a) => a !== '--verbose'), { verbose: args.includes('--verbose') })
  console.log(output)
  process.exit(code)
}
