/**
 * A shared twin on a Redis that takes TLS (`--store rediss://…`), as managed Redis services do: a
 * replica over TLS and one on the server's unix socket are one twin; a certificate this machine does
 * not trust, plain TCP to the TLS port and TLS to a plain port are each refused at start in one line
 * that says what to do. The store is Debian's redis-server with a TLS port (its build links OpenSSL),
 * the certificate test/support/tls's loopback one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from './support/haproxy.ts'
import { startRedis, type TestRedis } from './support/redis.ts'
import { automation, automationTitles, call, runCli, startReplica, type Replica } from './support/replicas.ts'

const tls = (file: string) => new URL(`./support/tls/${file}`, import.meta.url).pathname
const TRUSTED = { NODE_EXTRA_CA_CERTS: tls('loopback-cert.pem') }

let redis: TestRedis
let tlsPort: number
/** A plain TCP port of the same server (only its unix socket otherwise); it listens on 127.0.0.2 too, a loopback address its certificate does not name. */
let plainPort: number
beforeAll(async () => {
  tlsPort = await freePort()
  plainPort = await freePort()
  redis = await startRedis({ args: ['--port', String(plainPort), '--bind', '127.0.0.1', '127.0.0.2', '--tls-port', String(tlsPort), '--tls-cert-file', tls('loopback-cert.pem'), '--tls-key-file', tls('loopback-key.pem'), '--tls-ca-cert-file', tls('loopback-cert.pem'), '--tls-auth-clients', 'no'] })
})
afterAll(async () => {
  await redis?.stop()
})

describe('a shared twin on Redis over TLS (rediss://)', () => {
  it('a replica over TLS and one on the unix socket are one twin: a write through either is read through the other', async () => {
    const replicas: Replica[] = []
    try {
      replicas.push(await startReplica({ store: `rediss://localhost:${tlsPort}/0`, twin: 'tls', args: ['--rate-limit', 'off'], env: TRUSTED }))
      replicas.push(await startReplica({ store: redis.url, twin: 'tls', args: ['--rate-limit', 'off'] }))
      const [overTls, onSocket] = replicas as [Replica, Replica]
      expect(overTls.output()).toMatch(new RegExp(`Shared twin 'tls' on rediss://localhost:${tlsPort}/0 \\(created`))
      const shop = /\n {2}([0-9a-f-]{36}) /.exec(overTls.output())![1]!
      expect((await call(overTls.url, 'POST', '/automations/create', shop, automation('over-tls'), { 'idempotency-key': 'tls-1' })).status).toBe(201)
      expect((await call(onSocket.url, 'POST', '/automations/create', shop, automation('on-socket'), { 'idempotency-key': 'tls-2' })).status).toBe(201)
      expect((await automationTitles(onSocket.url, shop, 'over-tls')).length).toBe(1)
      expect((await automationTitles(overTls.url, shop, 'on-socket')).length).toBe(1)
    } finally {
      await Promise.all(replicas.map((r) => r.stop()))
    }
  })

  it.each([
    ['a certificate this machine does not trust', () => `rediss://127.0.0.1:${tlsPort}/0`, {}, /: DEPTH_ZERO_SELF_SIGNED_CERT: the server's TLS certificate is self-signed; if you trust it, start shoptwin with NODE_EXTRA_CA_CERTS=\/path\/to\/its-ca\.pem$/],
    ['a certificate made for other names', () => `rediss://127.0.0.2:${tlsPort}/0`, TRUSTED, /: ERR_TLS_CERT_ALTNAME_INVALID: the server's TLS certificate is made for another host name; the server must present a valid one for the name in the URL$/],
    ['plain TCP to the TLS port', () => `redis://127.0.0.1:${tlsPort}/0`, TRUSTED, /: the store closed the connection at once; if its port takes TLS, the URL is rediss:\/\/$/],
    ['TLS to a plain port', () => `rediss://127.0.0.1:${plainPort}/0`, TRUSTED, /: no answer to the TLS handshake; if the store's port takes plain TCP, the URL is redis:\/\/$/],
  ])('%s: refused at start, one line saying what to do, exit 2', async (_, store, env, reason) => {
    const run = await runCli(['serve', '--port', '0', '--store', store(), '--twin', 'refused'], env)
    const lines = run.output.split('\n').filter(Boolean)
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^shoptwin serve: cannot reach the shared store ${store().replace(/[.:/]/g, '\\$&')}`))])
    expect(lines[0]).toMatch(reason)
    expect(run.code).toBe(2)
  })
})
