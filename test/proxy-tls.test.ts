/**
 * An https upstream, as partners' staging servers are (issue 27, item 1): `shoptwin proxy` and
 * `shoptwin conformance` in front of the twin behind TLS (a terminator on 127.0.0.1 with a certificate
 * of test/support/tls/, made for localhost and 127.0.0.1, or for another name). Trusted through
 * NODE_EXTRA_CA_CERTS, the proxy forwards and grades, and conformance runs; not trusted, the 502 and
 * the one line say what is wrong with the certificate and what to do, instead of a bare OpenSSL code.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { connect, type AddressInfo } from 'node:net'
import { join, resolve } from 'node:path'
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMock, type RunningMock } from '../conformance/testing/harness.ts'
import { startProxy } from '../proxy/index.ts'

const root = resolve(import.meta.dirname, '..')
const tlsFile = (name: string) => join(root, 'test/support/tls', name)
let mock: RunningMock
const terminators: TlsServer[] = []
/** The twin behind TLS with the certificate `name` (loopback: localhost and 127.0.0.1; other: other.example only). */
const behindTls: Record<'loopback' | 'other', string> = { loopback: '', other: '' }

beforeAll(async () => {
  mock = await startMock({ rateLimit: false })
  const twinPort = Number(new URL(mock.url).port)
  for (const name of ['loopback', 'other'] as const) {
    const server = createTlsServer({ key: readFileSync(tlsFile(`${name}-key.pem`)), cert: readFileSync(tlsFile(`${name}-cert.pem`)) }, (socket) => {
      const twin = connect(twinPort, '127.0.0.1')
      socket.pipe(twin).pipe(socket)
      socket.on('error', () => twin.destroy())
      twin.on('error', () => socket.destroy())
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    terminators.push(server)
    behindTls[name] = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  }
})

afterAll(async () => {
  for (const server of terminators) await new Promise((done) => server.close(done))
  await mock?.close()
})

/** A CLI of shoptwin run to its end (a proxy stopped with SIGINT once `whileUp` is done), its output and exit code. */
function runCli(args: string[], env: Record<string, string>, whileUp?: (url: string) => Promise<void>): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, 'mock/cli.ts'), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } })
    let out = ''
    let started = false
    const read = (chunk: Buffer) => {
      out += chunk.toString()
      const match = /^proxy: (http:\/\/\S+) →/m.exec(out)
      if (whileUp && match && !started) {
        started = true
        whileUp(match[1]!).then(() => child.kill('SIGINT'), (error) => (child.kill('SIGKILL'), fail(error)))
      }
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.on('exit', (code) => done({ code, out }))
  })
}

describe('an https upstream', () => {
  it('trusted through NODE_EXTRA_CA_CERTS: the proxy forwards to it and grades the exchanges', async () => {
    let shops: { status: number; body: { data?: unknown[] } } | undefined
    const run = await runCli(['proxy', '--upstream', behindTls.loopback, '--port', '0'], { NODE_EXTRA_CA_CERTS: tlsFile('loopback-cert.pem') }, async (url) => {
      const answer = await fetch(`${url}/account/shops`, { headers: { 'x-api-key': 'demo-key' } })
      shops = { status: answer.status, body: (await answer.json()) as { data?: unknown[] } }
    })
    expect(shops?.status, run.out).toBe(200)
    expect(shops!.body.data!.length).toBeGreaterThan(0)
    expect(run.out).toMatch(/^1 exchange;/m)
    expect(run.out).toMatch(/^server: NO VIOLATION/m)
    expect(run.out).not.toContain('the upstream failed')
  })

  it.each([
    ['not trusted (self-signed)', 'loopback', {}, /the upstream failed: DEPTH_ZERO_SELF_SIGNED_CERT: the server's TLS certificate is self-signed; if you trust it, start shoptwin with NODE_EXTRA_CA_CERTS=/],
    ['trusted, made for another name', 'other', { NODE_EXTRA_CA_CERTS: tlsFile('other-cert.pem') }, /the upstream failed: ERR_TLS_CERT_ALTNAME_INVALID: the server's TLS certificate is made for another host name; the server must present a valid one/],
  ] as const)('%s: the client gets 502 {error} saying what is wrong with the certificate and what to do', async (_case, name, env, said) => {
    let answer: { status: number; error?: string } | undefined
    const run = await runCli(['proxy', '--upstream', behindTls[name], '--port', '0'], env, async (url) => {
      const response = await fetch(`${url}/health`)
      answer = { status: response.status, ...((await response.json()) as { error?: string }) }
    })
    expect(answer?.status, run.out).toBe(502)
    expect(answer!.error).toMatch(said)
  })

  it('in-process too (startProxy): the same words', async () => {
    const proxy = await startProxy({ upstream: behindTls.loopback, port: 0, host: '127.0.0.1' })
    try {
      const response = await fetch(`${proxy.url}/health`)
      expect(response.status).toBe(502)
      expect(((await response.json()) as { error: string }).error).toContain('self-signed; if you trust it')
    } finally {
      await proxy.stop()
    }
  })

  it('conformance: a target whose certificate is not trusted is one line saying so and what to do (exit 2); trusted, the rules run against it', async () => {
    const args = ['conformance', '--base-url', behindTls.loopback, '--api-key', 'demo-key', '--shop-id', mock.shopId, '--rules', 'auth.key-only-routes', '--rps', '100']
    const refused = await runCli(args, {})
    expect(refused.code).toBe(2)
    expect(refused.out.trim().split('\n')).toEqual([expect.stringMatching(/^conformance: cannot reach https:\/\/127\.0\.0\.1:\d+: DEPTH_ZERO_SELF_SIGNED_CERT: the server's TLS certificate is self-signed; if you trust it, start shoptwin with NODE_EXTRA_CA_CERTS=/)])
    const trusted = await runCli(args, { NODE_EXTRA_CA_CERTS: tlsFile('loopback-cert.pem') })
    expect(trusted.out).toMatch(/auth\.key-only-routes/)
    expect(trusted.out).not.toContain('cannot reach')
    expect(trusted.code, trusted.out).toBe(0)
  })
})
