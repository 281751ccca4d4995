/**
 * The README's haproxy configuration, run as it is written (issue 23): Debian's haproxy (installed by
 * .ci/run) with the one ```haproxy block of README.md, its addresses, ports and socket path given
 * through the block's environment placeholders, in front of three replicas on one redis-server.
 * Through it: the exact rate limit, read-your-writes while haproxy alternates the replicas, and
 * failover (kill -9: the health check takes the replica out, requests keep being answered, retries
 * only where they cannot write twice). `npm run test:replicas`.
 */
import { Agent, request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IN_FLIGHT_MESSAGE } from '../../mock/pipeline/idempotency.ts'
import { checkHaproxyConfig, HAPROXY_PLACEHOLDERS, NAMES, placeholdersOf, readmeHaproxyConfig, type ServerName, startTwinBehindHaproxy } from '../support/haproxy.ts'
import { redisCommand, startRedis, type TestRedis } from '../support/redis.ts'
import { automation, automationTitles, call, count, DEMO_KEY, FROZEN, load, type Replica, type Reply, startReplica } from '../support/replicas.ts'

/**
 * An unkeyed request through a node:http agent (`false`: on a connection of its own): its reply, or
 * how its connection failed; and whether the connection had carried a request before (node's
 * `reusedSocket`).
 */
function callVia(agent: Agent | false, base: string, method: string, path: string, shop: string, body?: unknown): Promise<{ reply?: Reply; failed?: string; reused: boolean }> {
  return new Promise((resolve) => {
    const req = request(`${base}${path}`, { method, agent, headers: { 'content-type': 'application/json', 'x-api-key': DEMO_KEY, 'x-shop-id': shop } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (text += d))
      res.on('end', () => resolve({ reused: req.reusedSocket, reply: { status: res.statusCode!, text, replica: (res.headers['x-shoptwin-replica'] as string | undefined) ?? null } }))
    })
    req.on('error', (error) => resolve({ reused: req.reusedSocket, failed: error.message }))
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}


let redis: TestRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

/** Three replicas of one twin on the test's redis-server, behind haproxy running the README's configuration. */
const behindHaproxy = (name: string, args: string[] = [], env: Record<string, string> = {}, envOf: Partial<Record<ServerName, Record<string, string>>> = {}) => startTwinBehindHaproxy({ store: redis.url, name, args, env, envOf })

/** Kills a replica with SIGKILL and waits until it is gone. */
async function kill9(replica: Replica): Promise<void> {
  const gone = new Promise((r) => replica.process.once('exit', r))
  replica.signal('SIGKILL')
  await gone
}

/** The status of an idempotency claim in the store, whatever its generation (`processing` while in flight), or null. */
async function claimStatus(twin: string, key: string): Promise<string | null> {
  const found = /\$\d+\r\n(.+)\r\n/.exec(await redisCommand(redis.socket, 'KEYS', `st:{tw:${twin}}:*:idem:*:${key}`))
  if (!found) return null
  return /\$\d+\r\n(.*)\r\n/.exec(await redisCommand(redis.socket, 'HGET', found[1]!, 'status'))?.[1] ?? null
}

const errorOf = (reply: Reply) => (JSON.parse(reply.text) as { error: string }).error

describe("the README's haproxy configuration in front of three replicas on Redis (issue 23)", () => {
  it('is one ```haproxy block whose addresses, ports and paths are all placeholders, valid for `haproxy -c` without a warning', () => {
    const config = readmeHaproxyConfig()
    expect(placeholdersOf(config)).toEqual([...HAPROXY_PLACEHOLDERS].sort())
    // Every address, port and path of the block is a placeholder: what the tests set is all they change.
    for (const line of config.split('\n').filter((l) => /^\s*(bind|server|stats socket)\s/.test(l))) expect(line).toMatch(/"\$\{[A-Z_]+-[^}]+\}"/)
    const { code, output } = checkHaproxyConfig(config, { SHOPTWIN_BIND: '127.0.0.1:4010', REPLICA_A: '127.0.0.1:4011', REPLICA_B: '127.0.0.1:4012', REPLICA_C: '127.0.0.1:4013' })
    expect(output).not.toMatch(/WARNING|ALERT/)
    expect(code, output).toBe(0)
    // The placeholders' defaults are the README's commands' ports (what an operator who copies both gets).
    expect(config).toContain('"${SHOPTWIN_BIND-127.0.0.1:4010}"')
    for (const [i, n] of NAMES.entries()) expect(config).toContain(`server ${n} "\${REPLICA_${n.toUpperCase()}-127.0.0.1:${4011 + i}}"`)
  })

  it('rate limit exact through haproxy: frozen clock, 300 concurrent requests on one key and shop from 3 processes: 10 succeed, 290 get 429 with Retry-After, every replica answered some', async () => {
    const t = await behindHaproxy('hap-rate')
    try {
      expect((await call(t.haproxy.url, 'POST', '/__admin/clock', undefined, { now: FROZEN })).status).toBe(200)
      const replies = await load(3, { urls: [t.haproxy.url], method: 'GET', path: '/shop/sps', shop: t.shop, count: 300 })
      expect(replies.filter((r) => r.status === 200)).toHaveLength(10)
      const refused = replies.filter((r) => r.status === 429)
      expect(refused).toHaveLength(290)
      for (const r of refused) {
        expect(r.retryAfter).toBe('1')
        expect(errorOf(r)).toBeTruthy()
      }
      expect(new Set(replies.map((r) => r.replica))).toEqual(new Set(NAMES))
    } finally {
      await t.stop()
    }
  })

  it(`read-your-writes through haproxy: ${count(500)} rounds of a write then a read, haproxy alternating the replicas: every read by another replica than its write, 0 stale`, async () => {
    const t = await behindHaproxy('hap-ryw', ['--rate-limit', 'off'])
    try {
      const created = await call(t.haproxy.url, 'POST', '/dashboards/create', t.shop, { name: 'ryw-0' })
      expect(created.status, created.text).toBe(201)
      const id = (JSON.parse(created.text) as { data: { id: string } }).data.id
      let stale = 0
      let sameReplica = 0
      const writers = new Set<string>()
      const readers = new Set<string>()
      for (let i = 1; i <= count(500); i++) {
        const wrote = await call(t.haproxy.url, 'POST', '/dashboards/update', t.shop, { dashboard_id: id, name: `ryw-${i}` })
        expect(wrote.status, wrote.text).toBe(200)
        const read = await call(t.haproxy.url, 'POST', '/dashboards/get', t.shop, { dashboard_id: id })
        if ((JSON.parse(read.text) as { data: { name: string } }).data.name !== `ryw-${i}`) stale++
        if (read.replica === wrote.replica) sameReplica++
        writers.add(wrote.replica!)
        readers.add(read.replica!)
      }
      expect(stale).toBe(0)
      expect(sameReplica).toBe(0)
      expect(writers).toEqual(new Set(NAMES))
      expect(readers).toEqual(new Set(NAMES))
    } finally {
      await t.stop()
    }
  })

  it('failover: kill -9 a replica: every request is still answered (a refused connection is retried on another replica), the health check takes it out, and puts it back when it restarts; no keyed write is applied twice', async () => {
    const t = await behindHaproxy('hap-failover', ['--rate-limit', 'off'])
    try {
      await call(t.haproxy.url, 'POST', '/__admin/clock', undefined, { now: FROZEN })
      const mixed = async (round: string, n: number): Promise<Reply[]> => {
        const replies: Reply[] = []
        for (let i = 0; i < n; i++) {
          replies.push(await call(t.haproxy.url, 'GET', '/shop/sps', t.shop))
          // An unkeyed POST (a read): retried only when nothing was sent (a refused connection).
          replies.push(await call(t.haproxy.url, 'POST', '/dashboards/list', t.shop, {}))
          replies.push(await call(t.haproxy.url, 'POST', '/automations/create', t.shop, automation(`failover-${round}-${i}`), { 'idempotency-key': `failover-${round}-${i}` }))
        }
        return replies
      }
      // The window before the health check notices a kill, held open: a's checks paused (runtime API).
      expect(await t.haproxy.command('disable health replicas/a')).toBe('\n')
      await kill9(t.replicas.a)
      // Before the health check has noticed: haproxy still sends a's share to a, is refused, and sends it to another.
      const meanwhile = await mixed('meanwhile', 10)
      for (const r of meanwhile) {
        expect([200, 201], r.text).toContain(r.status)
        expect(r.replica).not.toBe('a')
      }
      const afterKill = await t.haproxy.servers()
      expect(afterKill.a!.status).toBe('no check')
      expect(afterKill.a!.redispatches).toBeGreaterThanOrEqual(5)
      expect(await t.haproxy.command('enable health replicas/a')).toBe('\n')
      await expect.poll(async () => (await t.haproxy.servers()).a!.status, { timeout: 60_000, interval: 50 }).toBe('DOWN')
      const servers = await t.haproxy.servers()
      expect([servers.b!.status, servers.c!.status]).toEqual(['UP', 'UP'])
      const out = await mixed('out', 10)
      for (const r of out) expect([200, 201], r.text).toContain(r.status)
      expect(new Set(out.map((r) => r.replica))).toEqual(new Set(['b', 'c']))
      const board = await call(t.haproxy.url, 'POST', '/dashboards/create', t.shop, { name: 'written while a was out' })
      expect(board.status, board.text).toBe(201)

      // a restarts where haproxy expects it: its health check puts it back, and it reads what was written meanwhile.
      t.replicas.a = await startReplica({ store: redis.url, twin: t.name, args: t.args, port: Number(new URL(t.replicas.a.url).port) })
      await expect.poll(async () => (await t.haproxy.servers()).a!.status, { timeout: 60_000, interval: 50 }).toBe('UP')
      const reads = await Promise.all([0, 1, 2].map(async () => call(t.haproxy.url, 'POST', '/dashboards/list', t.shop, {})))
      const sequential: Reply[] = []
      for (let i = 0; i < 3; i++) sequential.push(await call(t.haproxy.url, 'POST', '/dashboards/list', t.shop, {}))
      expect(new Set(sequential.map((r) => r.replica))).toEqual(new Set(NAMES))
      for (const r of [...reads, ...sequential]) expect(r.text).toContain('written while a was out')
      expect((await automationTitles(t.haproxy.url, t.shop, 'failover-')).sort()).toEqual(
        [...Array.from({ length: 10 }, (_, i) => `failover-meanwhile-${i}`), ...Array.from({ length: 10 }, (_, i) => `failover-out-${i}`)].sort(),
      )
    } finally {
      await t.stop()
    }
  })

  it('a replica killed mid-request (the connection closes before any answer): a keyed write is retried on another replica, which answers 409 in flight (never a second write); an unkeyed write is not retried: 502 {error}, nothing written', async () => {
    // Replica a holds each of its writes 5 s under the twin's lease (SHOPTWIN_HOLD_WRITE_MS), so that
    // it can be killed mid-write (the test sees the write held and kills a well within it, even on a loaded machine). Killed, it keeps the twin's lease (10 s) until it runs out: the other
    // replicas' health checks wait for it meanwhile, and must not take them out.
    const hold = { SHOPTWIN_HOLD_WRITE_MS: '5000' }
    const t = await behindHaproxy('hap-midwrite', ['--rate-limit', 'off'], {}, { a: hold })
    // haproxy's runtime API sends a request to a alone (b and c weigh 0), then gives b and c their weight back before a is killed.
    const onlyA = async (only: boolean) => {
      for (const n of ['b', 'c']) expect(await t.haproxy.command(`set weight replicas/${n} ${only ? '0' : '100%'}`)).toBe('\n')
    }
    try {
      // The clock is frozen on b, which holds nothing, and seen on c: a control-API call answers before
      // its commit (reported), and the claim's 60 s window is judged on the twin's clock.
      expect((await call(t.replicas.b.url, 'POST', '/__admin/clock', undefined, { now: FROZEN })).status).toBe(200)
      await expect.poll(async () => JSON.parse((await call(t.replicas.c.url, 'GET', '/__admin/clock', undefined)).text).frozen, { timeout: 60_000 }).toBe(true)

      await onlyA(true)
      const keyed = call(t.haproxy.url, 'POST', '/automations/create', t.shop, automation('held-keyed'), { 'idempotency-key': 'held-keyed' })
      // a has claimed the key (in flight, in the store) and holds the write: not committed yet.
      await expect.poll(() => claimStatus(t.name, 'held-keyed'), { timeout: 60_000, interval: 10 }).toBe('processing')
      await onlyA(false)
      await kill9(t.replicas.a)
      const retried = await keyed
      expect(retried.status, retried.text).toBe(409)
      expect(errorOf(retried)).toBe(IN_FLIGHT_MESSAGE)
      expect(['b', 'c']).toContain(retried.replica)
      // The killed replica's claim frees itself after the spec's 60 s on the twin's clock; the client's retry writes once.
      await call(t.haproxy.url, 'POST', '/__admin/clock', undefined, { advance_ms: 61_000 })
      const again = await call(t.haproxy.url, 'POST', '/automations/create', t.shop, automation('held-keyed'), { 'idempotency-key': 'held-keyed' })
      expect(again.status, again.text).toBe(201)
      expect(await automationTitles(t.haproxy.url, t.shop, 'held-keyed')).toEqual(['held-keyed'])

      // a back on its port, holding its writes again.
      t.replicas.a = await startReplica({ store: redis.url, twin: t.name, args: t.args, env: { ...t.env, ...hold }, port: Number(new URL(t.replicas.a.url).port) })
      await expect.poll(async () => (await t.haproxy.servers()).a!.status, { timeout: 60_000, interval: 50 }).toBe('UP')
      // Two unkeyed writes held by a: one on a client connection of its own, one on a kept-alive client
      // connection that has carried a request before. haproxy answers the first 502; the second's
      // connection it closes without an answer (http_ana.c, abort_keep_alive: as a server closing an idle
      // kept-alive connection would, for the client to retry), which the client must read as the 502.
      const keptAlive = new Agent({ keepAlive: true, maxSockets: 1 })
      const before = await callVia(keptAlive, t.haproxy.url, 'GET', '/health', t.shop)
      expect(before.reply?.status, before.failed).toBe(200)
      await onlyA(true)
      const unkeyed = callVia(false, t.haproxy.url, 'POST', '/dashboards/create', t.shop, { name: 'held-unkeyed' })
      const unkeyedReused = callVia(keptAlive, t.haproxy.url, 'POST', '/dashboards/create', t.shop, { name: 'held-unkeyed-reused' })
      // haproxy has sent both to a, which holds each 5 s before its commit (the second waits for the first).
      await expect.poll(async () => (await t.haproxy.servers()).a!.current, { timeout: 60_000, interval: 10 }).toBe(2)
      await onlyA(false)
      await kill9(t.replicas.a)
      const refused = await unkeyed
      expect(refused.reply?.status, refused.failed ?? refused.reply?.text).toBe(502)
      expect(errorOf(refused.reply!)).toMatch(/Idempotency-Key/)
      expect(await unkeyedReused).toEqual({ reused: true, failed: 'socket hang up' })
      keptAlive.destroy()
      const boards = await call(t.haproxy.url, 'POST', '/dashboards/list', t.shop, {})
      expect(boards.status, boards.text).toBe(200)
      expect(boards.text).not.toContain('held-unkeyed')
      // Only a was ever taken out.
      expect(t.haproxy.output()).not.toMatch(/replicas\/[bc] is DOWN/)
    } finally {
      await t.stop()
    }
  })
})
