/**
 * A shared twin on a Redis as operators run one: over TLS (`--store rediss://…`, as managed Redis
 * services require), with a password, with an ACL user of its own. A replica over TLS and one on the
 * server's unix socket are one twin; a user scoped to the twin's keys and channel serves it. A
 * certificate this machine does not trust, plain TCP to the TLS port, TLS to a plain port, no password,
 * a wrong one, and an ACL without the twin's keys or channel are each refused at start in one line that
 * says what to do, the password never in it. The store is Debian's redis-server (its build links
 * OpenSSL), with a TLS port and the certificate of test/support/tls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from './support/haproxy.ts'
import { redisCommand, startRedis, type TestRedis } from './support/redis.ts'
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

/** The start's output as one line (refusals are one line, exit 2). */
async function refusal(store: string, env: Record<string, string> = {}, twin = 'refused'): Promise<string> {
  const run = await runCli(['serve', '--port', '0', '--store', store, '--twin', twin], env)
  const lines = run.output.split('\n').filter(Boolean)
  expect(lines, run.output).toHaveLength(1)
  expect(run.code).toBe(2)
  return lines[0]!
}

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
    const line = await refusal(store(), env)
    expect(line).toMatch(new RegExp(`^shoptwin serve: cannot reach the shared store ${store().replace(/[.:/]/g, '\\$&')}`))
    expect(line).toMatch(reason)
  })
})

describe('a shared twin on a Redis with a password and ACL users', () => {
  let guarded: TestRedis
  let port: number
  const at = (auth: string) => `redis://${auth}127.0.0.1:${port}/0`
  /** The twin's keys and channel (mock/twin/redis/index.ts twinKeys). */
  const prefix = (twin: string) => `st:{tw:${twin}}:`
  beforeAll(async () => {
    port = await freePort()
    guarded = await startRedis({ args: ['--port', String(port), '--bind', '127.0.0.1'] })
    const acl = (...args: string[]) => redisCommand(guarded.socket, 'ACL', 'SETUSER', ...args)
    // The user an operator gives one twin: its keys and channel, every command but the dangerous ones (INFO, CONFIG, KEYS...).
    await acl('scoped', 'on', '>scoped-pw-1', `~${prefix('acl')}*`, `&${prefix('acl')}*`, '+@all', '-@dangerous')
    // Redis 7 gives a new user no channel: this one may use every key, and subscribe to nothing.
    await acl('deaf', 'on', '>deaf-pw-2', '~*', 'resetchannels', '+@all', '-@dangerous')
    await acl('elsewhere', 'on', '>elsewhere-pw-3', '~app:*', '&*', '+@all', '-@dangerous')
    // Last: the default user needs a password now (the socket too).
    await acl('default', 'on', '>admin-pw-4')
  })
  afterAll(async () => {
    await guarded?.stop()
  })

  it('a user scoped to the twin\'s keys and channel, without INFO: the replica serves, writes and reads; nothing on the console of a ready check it cannot make', async () => {
    const replica = await startReplica({ store: at('scoped:scoped-pw-1@'), twin: 'acl', args: ['--rate-limit', 'off'] })
    try {
      const shop = /\n {2}([0-9a-f-]{36}) /.exec(replica.output())![1]!
      expect((await call(replica.url, 'POST', '/automations/create', shop, automation('scoped'), { 'idempotency-key': 'acl-1' })).status).toBe(201)
      expect(await automationTitles(replica.url, shop, 'scoped')).toHaveLength(1)
      expect(replica.output()).toMatch(/Shared twin 'acl' on redis:\/\/scoped:REDACTED@/)
      expect(replica.output()).not.toMatch(/ready check|NOPERM|scoped-pw-1/)
    } finally {
      await replica.stop()
    }
  })

  it.each([
    ['no password', '', /: NOAUTH: the store asks for a password; give it in the URL, redis:\/\/\[USER\]:PASSWORD@HOST:PORT\[\/DB\]$/],
    ['a wrong password', ':not-the-pw-5@', /: WRONGPASS invalid username-password pair or user is disabled\.$/],
    ['a user without the twin\'s channel (Redis 7\'s default)', 'deaf:deaf-pw-2@', /NOPERM this user has no permissions to access one of the channels used as arguments\): its ACL needs the twin's keys and channel, ~st:\{tw:refused\}:\* and &st:\{tw:refused\}:\*/],
    ['a user without the twin\'s keys', 'elsewhere:elsewhere-pw-3@', /NOPERM this user has no permissions to access one of the keys used as arguments\): its ACL needs the twin's keys and channel, ~st:\{tw:refused\}:\* and &st:\{tw:refused\}:\*/],
  ])('%s: refused at start in one line saying what to do, the password not in it', async (_, auth, reason) => {
    const line = await refusal(at(auth))
    expect(line).toMatch(/^shoptwin serve: /)
    expect(line).toMatch(reason)
    expect(line).not.toMatch(/-pw-\d/)
  })
})
