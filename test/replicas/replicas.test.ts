/**
 * Three replicas of one twin on Redis, behind a round-robin balancer, loaded from several processes
 * (issue 23, item 3). `npm run test:replicas` (which .ci/run runs); counts from the issue unless
 * REPLICAS_SCALE shrinks them (e.g. 0.1 while developing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedis, type TestRedis } from '../support/redis.ts'
import { automation, automationTitles, type Balancer, call, count, DEMO_KEY as KEY, FROZEN, load, readSweep, type Replica, runCli, startBalancer, startReplica, startReplicas } from '../support/replicas.ts'


let redis: TestRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

interface Twin {
  replicas: Replica[]
  balancer: Balancer
  shop: string
  stop(): Promise<void>
}

async function twin(name: string, args: string[] = [], env: Record<string, string> = {}, n = 3): Promise<Twin> {
  const replicas = await startReplicas(n, { store: redis.url, twin: name, args, env })
  const first = replicas[0]!
  const balancer = await startBalancer(replicas.map((r) => r.url))
  const shop = /\n {2}([0-9a-f-]{36}) /.exec(first.output())![1]!
  return {
    replicas,
    balancer,
    shop,
    async stop() {
      await balancer.close()
      await Promise.all(replicas.map((r) => r.stop()))
    },
  }
}

describe('three replicas on Redis behind a balancer (issue 23, item 3)', () => {
  it('rate limit exact: frozen clock, 300 concurrent requests on one key and shop over 3 replicas: 10 succeed, 290 get 429 with Retry-After; the per-day limit is exact too', async () => {
    const t = await twin('rate')
    try {
      await call(t.balancer.url, 'POST', '/__admin/clock', undefined, { now: FROZEN })
      const replies = await load(3, { urls: t.replicas.map((r) => r.url), method: 'GET', path: '/shop/sps', shop: t.shop, count: 300 })
      expect(replies.filter((r) => r.status === 200)).toHaveLength(10)
      const refused = replies.filter((r) => r.status === 429)
      expect(refused).toHaveLength(290)
      for (const r of refused) expect(r.retryAfter).toBe('1')
    } finally {
      await t.stop()
    }
    const day = await twin('rate-day', ['--rate-per-second', '100000', '--rate-per-day', '50'])
    try {
      await call(day.balancer.url, 'POST', '/__admin/clock', undefined, { now: FROZEN })
      const replies = await load(3, { urls: day.replicas.map((r) => r.url), method: 'GET', path: '/shop/sps', shop: day.shop, count: 300 })
      expect(replies.filter((r) => r.status === 200)).toHaveLength(50)
      for (const r of replies.filter((r) => r.status === 429)) expect(JSON.parse(r.text).error).toMatch(/day/)
    } finally {
      await day.stop()
    }
  })

  it(`idempotency race: ${count(500)} rounds of one key sent to all 3 replicas at once: one record per key; every other answer is 409 in flight or the byte-identical replay`, async () => {
    const t = await twin('race', ['--rate-limit', 'off'])
    try {
      for (let round = 0; round < count(500); round++) {
        const body = automation(`race-${round}`)
        const replies = await Promise.all(t.replicas.map((r) => call(r.url, 'POST', '/automations/create', t.shop, body, { 'idempotency-key': `race-${round}` })))
        const created = replies.filter((r) => r.status === 201)
        expect(created.length, JSON.stringify(replies)).toBeGreaterThanOrEqual(1)
        for (const r of replies) {
          if (r.status === 409) expect(JSON.parse(r.text).error).toBeTruthy()
          else expect(r).toMatchObject({ status: 201, text: created[0]!.text })
        }
      }
      expect(await automationTitles(t.balancer.url, t.shop, 'race-')).toHaveLength(count(500))
    } finally {
      await t.stop()
    }
  })

  it(`kill -9: ${count(2000)} keyed writes while a replica is SIGKILLed and restarted 10 times; the client retries with the same key: exactly one record each, every key completed on every replica`, async () => {
    const t = await twin('kill', ['--rate-limit', 'off'])
    try {
      await call(t.balancer.url, 'POST', '/__admin/clock', undefined, { now: FROZEN })
      const total = count(2000)
      let done = 0
      let kills = 0
      const KILLS = 10
      const killer = (async () => {
        // Terminates: ten kills, each after a share of the writes is done (the writers wait for the
        // last kills before their last share, so every kill lands while writes are going on).
        while (kills < KILLS) {
          await new Promise((r) => setTimeout(r, 20))
          if (done < ((kills + 1) * total) / (KILLS + 2)) continue
          const i = kills % t.replicas.length
          t.replicas[i]!.signal('SIGKILL')
          kills++
          t.replicas[i] = await startReplica({ store: redis.url, twin: 'kill', args: ['--rate-limit', 'off'] })
          t.balancer.upstreams[i] = t.replicas[i]!.url
        }
      })()
      const lastShare = Math.floor((total * (KILLS + 1)) / (KILLS + 2))
      const write = async (n: number) => {
        // Terminates: a write that meets 409 moves the twin's clock past the in-flight window (what
        // waiting 60 s would do), so a claim left by a killed replica frees itself.
        for (let attempt = 0; ; attempt++) {
          const reply = await call(t.balancer.url, 'POST', '/automations/create', t.shop, automation(`kill-${n}`), { 'idempotency-key': `kill-${n}` }).catch(() => ({ status: 0, text: '' }))
          if (reply.status === 201) return
          if (reply.status === 409 && attempt > 3) await call(t.balancer.url, 'POST', '/__admin/clock', undefined, { advance_ms: 61_000 }).catch(() => {})
          if (attempt > 200) throw new Error(`write ${n} never succeeded: ${reply.status} ${reply.text}`)
          await new Promise((r) => setTimeout(r, 20))
        }
      }
      const workers = Array.from({ length: 8 }, async (_, w) => {
        for (let n = w; n < total; n += 8) {
          if (n >= lastShare) await killer
          await write(n)
          done++
        }
      })
      await Promise.all(workers)
      await killer
      expect(kills).toBe(KILLS)
      expect(new Set(await automationTitles(t.balancer.url, t.shop, 'kill-')).size).toBe(total)
      expect(await automationTitles(t.balancer.url, t.shop, 'kill-')).toHaveLength(total)
      await call(t.balancer.url, 'POST', '/__admin/clock', undefined, { advance_ms: 61_000 })
      for (const r of t.replicas) {
        for (let n = 0; n < total; n += Math.max(1, Math.floor(total / 200))) {
          const lookup = JSON.parse((await call(r.url, 'GET', `/idempotency/kill-${n}`, t.shop)).text) as { idempotency: { status: string } }
          expect(lookup.idempotency.status).toBe('completed')
        }
      }
    } finally {
      await t.stop()
    }
  })

  it('restart all: stop every replica, start three fresh ones: a sweep of reads and the clock are byte-identical', async () => {
    const t = await twin('restart', ['--rate-limit', 'off'])
    const sweep = (base: string) => readSweep(base, t.shop, 'restart-1')
    let after: string[] = []
    let before: string[] = []
    try {
      await call(t.balancer.url, 'POST', '/__admin/clock', undefined, { now: FROZEN })
      await call(t.balancer.url, 'POST', '/dashboards/create', t.shop, { name: 'Survives restarts' })
      await call(t.balancer.url, 'POST', '/automations/create', t.shop, automation('restart'), { 'idempotency-key': 'restart-1' })
      await call(t.balancer.url, 'POST', '/__admin/halo/config', undefined, { refresh_ms: 4321 })
      await call(t.balancer.url, 'POST', '/__admin/clock', undefined, { advance_ms: 3_600_000 })
      before = await sweep(t.balancer.url)
    } finally {
      await t.stop()
    }
    const fresh = await twin('restart', ['--rate-limit', 'off'])
    try {
      after = await sweep(fresh.balancer.url)
    } finally {
      await fresh.stop()
    }
    // Compared as text, so a difference is shown line by line.
    expect(after.join('\n')).toBe(before.join('\n'))
  })

  it(`read-your-writes: ${count(10_000)} rounds of "write on A, read on B" with no sleep: 0 stale reads`, async () => {
    const t = await twin('ryw', ['--rate-limit', 'off'], {}, 2)
    try {
      const [a, b] = t.replicas
      const board = JSON.parse((await call(a!.url, 'POST', '/dashboards/create', t.shop, { name: 'ryw-0' })).text) as { data: { id: string } }
      let stale = 0
      for (let i = 1; i <= count(10_000); i++) {
        const wrote = await call(a!.url, 'POST', '/dashboards/update', t.shop, { dashboard_id: board.data.id, name: `ryw-${i}` })
        expect(wrote.status).toBe(200)
        const read = JSON.parse((await call(b!.url, 'POST', '/dashboards/get', t.shop, { dashboard_id: board.data.id })).text) as { data: { name: string } }
        if (read.data.name !== `ryw-${i}`) stale++
      }
      expect(stale).toBe(0)
    } finally {
      await t.stop()
    }
  })

  it('fencing: a replica stopped (SIGSTOP) mid-write past its lease has its commit refused (503), rebuilds, and nothing is written twice', async () => {
    // A holds each write 4 s under a 3 s lease (kept alive by its lease keeper thread): stopped for
    // 5 s meanwhile (the stop lands within the hold even when a loaded machine is slow to see the
    // hold's line), its lease runs out and B writes; A, continued, is refused at commit.
    const a = await startReplica({ store: redis.url, twin: 'fence', args: ['--rate-limit', 'off'], env: { SHOPTWIN_LEASE_MS: '3000', SHOPTWIN_HOLD_WRITE_MS: '4000' } })
    const b = await startReplica({ store: redis.url, twin: 'fence', args: ['--rate-limit', 'off'], env: { SHOPTWIN_LEASE_MS: '3000' } })
    const shop = /\n {2}([0-9a-f-]{36}) /.exec(a.output())![1]!
    try {
      const keys: string[] = []
      for (let round = 0; round < 3; round++) {
        const key = `fence-a-${round}`
        keys.push(key, `fence-b-${round}`)
        const stalled = call(a.url, 'POST', '/automations/create', shop, automation(key), { 'idempotency-key': key })
        // A is in its write (held 2 s under the lease, its catch-up done) when it stops: it says so, so
        // the stop never lands on a store command in flight (whose timeout would fire first on resume).
        await expect.poll(() => a.output().includes(`holds write ${round + 1} for`), { timeout: 60_000, interval: 10 }).toBe(true)
        a.signal('SIGSTOP')
        await new Promise((r) => setTimeout(r, 5000))
        expect((await call(b.url, 'POST', '/automations/create', shop, automation(`fence-b-${round}`), { 'idempotency-key': `fence-b-${round}` })).status).toBe(201)
        a.signal('SIGCONT')
        const refused = await stalled
        expect(refused.status, refused.text).toBe(503)
        expect((JSON.parse(refused.text) as { error: string }).error).toMatch(/lost its write lease/)
        // The client retries with the same key: the write happens once.
        expect((await call(b.url, 'POST', '/automations/create', shop, automation(key), { 'idempotency-key': key })).status).toBe(201)
      }
      expect((await automationTitles(b.url, shop, 'fence-')).sort()).toEqual([...keys].sort())
      const metrics = JSON.parse((await call(a.url, 'GET', '/__admin/metrics', undefined)).text) as { refused_commits: number; rebuilds: number }
      expect(metrics.refused_commits).toBe(3)
      // A, rebuilt from the log, reads what B wrote.
      expect((await automationTitles(a.url, shop, 'fence-')).sort()).toEqual([...keys].sort())
    } finally {
      await a.stop()
      await b.stop()
    }
  })

  it('a replica stopped (SIGSTOP) while it keeps the lease idle, past its lease, answers nothing from what it held when continued: a key it had completed is run again after another replica reset the twin', async () => {
    const a = await startReplica({ store: redis.url, twin: 'kept', args: ['--rate-limit', 'off'], env: { SHOPTWIN_LEASE_MS: '3000', SHOPTWIN_LEASE_IDLE_MS: '600000' } })
    const b = await startReplica({ store: redis.url, twin: 'kept', args: ['--rate-limit', 'off'], env: { SHOPTWIN_LEASE_MS: '3000' } })
    const shop = /\n {2}([0-9a-f-]{36}) /.exec(a.output())![1]!
    try {
      const key = 'kept-1'
      expect((await call(a.url, 'POST', '/automations/create', shop, automation(key), { 'idempotency-key': key })).status).toBe(201)
      // A keeps the lease (it would for 10 minutes); with it, A answers a replay of the key itself.
      const again = await call(a.url, 'POST', '/automations/create', shop, automation(key), { 'idempotency-key': key })
      expect(again.replayed).toBe('true')
      a.signal('SIGSTOP')
      await new Promise((r) => setTimeout(r, 5000))
      // A's lease ran out: B takes it and resets the twin (its records go).
      expect((await call(b.url, 'POST', '/__admin/reset', undefined, {})).status).toBe(200)
      a.signal('SIGCONT')
      const after = await call(a.url, 'POST', '/automations/create', shop, automation(key), { 'idempotency-key': key })
      expect(after.status, after.text).toBe(201)
      expect(after.replayed).toBeNull()
      expect(await automationTitles(b.url, shop, 'kept-')).toEqual([key])
    } finally {
      await a.stop()
      await b.stop()
    }
  })

  it('conformance: the suite against the balancer gives the same verdict and outcomes as against one in-memory server', async () => {
    const t = await twin('conformance')
    const { createServer } = await import('../../mock/server.ts')
    const memory = createServer({ stateOptions: { seed: 42, scale: 'default', responseCache: true } })
    const memoryUrl = await memory.listen(0, '127.0.0.1')
    const outcomes = async (base: string, shop: string) => {
      const { output } = await runConformance(base, shop)
      const report = JSON.parse(output) as { verdict: string; outcomes: Array<{ id: string; status: string }> }
      return { verdict: report.verdict, rules: report.outcomes.map((r) => `${r.id} ${r.status}`) }
    }
    try {
      const viaBalancer = await outcomes(t.balancer.url, t.shop)
      const alone = await outcomes(memoryUrl, memory.state.world.shops[0]!.shop_id)
      expect(viaBalancer).toEqual(alone)
    } finally {
      await memory.close()
      await t.stop()
    }
  })
})

/** `shoptwin conformance --json`-like run: the report's JSON. */
async function runConformance(base: string, shop: string): Promise<{ output: string }> {
  const { mkdtempSync, readFileSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const dir = mkdtempSync(join(tmpdir(), 'shoptwin-replicas-conformance-'))
  // Every rule, writes included; a long rule timeout: three replicas on two loaded cores are slow, not wrong.
  await runCli(['conformance', '--base-url', base, '--api-key', KEY, '--shop-id', shop, '--enterprise-api-key', 'demo-enterprise-key', '--limited-api-key', 'demo-limited-key', '--allow-writes', '--rule-timeout', '900', '--report-dir', dir])
  return { output: readFileSync(join(dir, 'report.json'), 'utf8') }
}
