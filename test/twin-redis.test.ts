/**
 * One twin on Redis (issue 23): the stores behind one interface behave the same in memory and on
 * Redis (one contract suite runs against both), and several mock states on one store act as one twin
 * in one process (read-your-writes, one rate limit, one idempotency record, a shared clock and reset,
 * a restart that loses nothing, a 503 while the store is away). The multi-process proofs are in
 * test/replicas/ (npm run test:replicas).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockState, type MockState } from '../mock/index.ts'
import { redisCommand, startRedis, type TestRedis } from './support/redis.ts'
import { automation, runCli } from './support/replicas.ts'
import { fetchOf } from './support/in-process.ts'
import { inProcessReplica, type ReplicaOptions, TWIN_NOW } from './support/twin.ts'

const NOW = TWIN_NOW
let redis: TestRedis
let twins = 0

beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

/** A replica of twin `name` on the test's Redis (a fresh twin name per test unless given). */
const replica = (name = `t${++twins}`, options: ReplicaOptions = {}) => inProcessReplica(redis.url, name, options)
const memory = () => createMockState({ seed: 42, scale: 'small', today: '2026-03-10', now: NOW })

const closeAll = async (...states: MockState[]) => {
  for (const s of states) await s.twin.close()
}

describe('stores: one contract, in memory and on Redis (issue 23, item 1)', () => {
  const implementations: Array<[string, () => Promise<MockState>]> = [
    ['memory', async () => memory()],
    ['redis', () => replica()],
  ]
  for (const [kind, make] of implementations) {
    it(`${kind}: rate limit (spec: Limits): 10 per second per key and shop, then 429 with the seconds to wait; another shop has its own`, async () => {
      const state = await make()
      const decisions = []
      for (let i = 0; i < 12; i++) decisions.push(await state.rateLimiter.take('demo-key', 'shop-a'))
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10)
      expect(decisions[10]).toMatchObject({ allowed: false, retryAfterSeconds: 1, window: 'second', limit: 10, secondCount: 10 })
      expect((await state.rateLimiter.take('demo-key', 'shop-b')).allowed).toBe(true)
      await state.exclusive(() => state.clock.advance(1000))
      expect((await state.rateLimiter.take('demo-key', 'shop-a')).allowed).toBe(true)
      await state.twin.close()
    })

    if (kind === 'redis') {
      it('redis: rate limit (spec: Limits, per second per key and shop): a window of more instants than one Lua call takes (1,100 a second) is kept whole: exactly the limit passes', async () => {
        const state = await replica(undefined, { perSecond: 1100 })
        let allowed = 0
        for (let i = 0; i < 1150; i++) if ((await state.rateLimiter.take('demo-key', 'shop-a')).allowed) allowed++
        expect(allowed).toBe(1100)
        expect(await state.rateLimiter.take('demo-key', 'shop-a')).toMatchObject({ allowed: false, window: 'second', secondCount: 1100 })
        await state.twin.close()
      })
    }

    it(`${kind}: a request refused before the rate limit (its key's route) does not count: 10 allowed requests still pass in that second`, async () => {
      const state = await make()
      const shop = state.world.shops[0]!.shop_id
      const limited = fetchOf(state, 'demo-limited-key')
      // spec: Authentication 3: a call outside the key's routes returns 403 (refused before the limit counts it).
      for (let i = 0; i < 5; i++) expect((await limited('POST', '/dashboards/list', {}, shop)).status).toBe(403)
      const statuses = []
      for (let i = 0; i < 11; i++) statuses.push((await limited('GET', '/shop/sps', undefined, shop)).status)
      expect(statuses).toEqual([...Array(10).fill(200), 429])
      await state.twin.close()
    })

    it(`${kind}: idempotency (spec: Idempotency): started, in flight within 60 s, completed and replayed, expired after 24 h on the twin's clock`, async () => {
      const state = await make()
      const store = state.idempotency
      expect(await store.claim('shop', 'k1')).toEqual({ kind: 'started' })
      expect(await store.claim('shop', 'k1')).toEqual({ kind: 'in-flight' })
      expect((await store.lookup('shop', 'k1'))?.status).toBe('processing')
      await state.exclusive(() => state.clock.advance(60_000))
      // A claim whose request never finished (its replica died) frees itself after the window.
      expect(await store.claim('shop', 'k1')).toEqual({ kind: 'started' })
      await state.exclusive(() => store.complete('shop', 'k1', { status: 201, rawBody: '{"data":1}', headers: { 'x-a': 'b' }, permission: 'POST /automations/create' }))
      const replay = await store.claim('shop', 'k1')
      expect(replay).toMatchObject({ kind: 'replay', entry: { status: 'completed', responseStatus: 201, rawBody: '{"data":1}', headers: { 'x-a': 'b' }, permission: 'POST /automations/create' } })
      expect(await store.claim('other-shop', 'k1')).toEqual({ kind: 'started' })
      await state.exclusive(() => state.clock.advance(24 * 3_600_000))
      expect(await store.lookup('shop', 'k1')).toBeUndefined()
      expect(await store.claim('shop', 'k2')).toEqual({ kind: 'started' })
      await store.release('shop', 'k2')
      expect(await store.claim('shop', 'k2')).toEqual({ kind: 'started' })
      await state.twin.close()
    })

    it(`${kind}: the activity log records each keyed request, oldest first, numbered`, async () => {
      const state = await make()
      const entry = { time: NOW, actor: { kind: 'api_key' as const, key_id: 'key_1', label: 'k' }, shop_id: null, operation_id: 'getShopSps', tool: null, status: 200, idempotent_replay: false }
      state.activity.record(entry)
      state.activity.record({ ...entry, status: 429 })
      // The shared store appends without waiting for the answer: read when it has landed.
      await expect.poll(async () => (await state.activity.entries()).slice(-2).map((e) => e.status)).toEqual([200, 429])
      const ids = (await state.activity.entries()).slice(-2).map((e) => e.id)
      expect(ids[1]! - ids[0]!).toBe(1)
      await state.twin.close()
    })
  }
})

describe('one twin on Redis, in one process (issue 23, item 2)', () => {
  it('the activity log: what one replica answered is read on the other at once, its entries still in their batch (the barrier)', async () => {
    const name = `t${++twins}`
    const a = await replica(name)
    const b = await replica(name)
    const entry = { time: NOW, actor: { kind: 'api_key' as const, key_id: 'key_1', label: 'k' }, shop_id: null, operation_id: 'getShopSps', tool: null, status: 200, idempotent_replay: false }
    a.activity.record({ ...entry, operation_id: 'on-a' })
    // No wait: a's batch holds it (it goes within BATCH_DELAY_MS), b asks every replica for what it holds.
    expect((await b.activity.entries()).map((e) => e.operation_id)).toContain('on-a')
    await closeAll(a, b)
  })

  it('replicas: a write on one is read on the other from its next request (read-your-writes)', async () => {
    const a = await replica(undefined, { rateLimit: false })
    const b = await replica(a.twinName)
    const shop = a.world.shops[0]!.shop_id
    const fa = fetchOf(a)
    const fb = fetchOf(b)
    for (let i = 0; i < 20; i++) {
      const created = await fa('POST', '/dashboards/create', { name: `Board ${i}` }, shop)
      expect(created.status).toBe(201)
      const listed = await fb('POST', '/dashboards/list', {}, shop)
      expect(listed.text).toContain(`"name":"Board ${i}"`)
    }
    await closeAll(a, b)
  })

  it('concurrent reads share one look at the head, and each still sees every write answered before it arrived', async () => {
    const a = await replica(undefined, { rateLimit: false })
    const b = await replica(a.twinName)
    const shop = a.world.shops[0]!.shop_id
    const fa = fetchOf(a)
    const fb = fetchOf(b)
    const commands = async () => ((await b.twin.metrics()) as { store_commands: number }).store_commands
    await fb('POST', '/dashboards/list', {}, shop)
    let looks = 0
    for (let i = 0; i < 10; i++) {
      // A read on B already on its way when the write lands, then 20 reads that arrive after its answer.
      const early = fb('POST', '/dashboards/list', {}, shop)
      expect((await fa('POST', '/dashboards/create', { name: `Shared look ${i}` }, shop)).status).toBe(201)
      const before = await commands()
      const reads = await Promise.all(Array.from({ length: 20 }, () => fb('POST', '/dashboards/list', {}, shop)))
      looks += (await commands()) - before - 1
      for (const read of reads) expect(read.text).toContain(`"name":"Shared look ${i}"`)
      await early
    }
    // One look per request would be 200 (the push may bring an entry: one more each).
    expect(looks).toBeLessThanOrEqual(60)
    await closeAll(a, b)
  })

  it('replicas: one rate limit for the twin (spec: Limits), not one per replica', async () => {
    const a = await replica()
    const b = await replica(a.twinName)
    const shop = a.world.shops[0]!.shop_id
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => fetchOf(i % 2 ? a : b)('GET', '/shop/sps', undefined, shop)))
    expect(answers.filter((r) => r.status === 200)).toHaveLength(10)
    for (const refused of answers.filter((r) => r.status === 429)) expect(refused.headers.get('retry-after')).toBe('1')
    await closeAll(a, b)
  })

  it('replicas: the same Idempotency-Key sent to both at once acts once (spec: Idempotency); the others get 409 in flight or the replay', async () => {
    const a = await replica(undefined, { rateLimit: false })
    const b = await replica(a.twinName)
    const shop = a.world.shops[0]!.shop_id
    const body = automation('Once')
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => fetchOf(i % 2 ? a : b)('POST', '/automations/create', { ...body, title: `Once ${round}` }, shop, { 'idempotency-key': `race-${round}` })))
      const created = answers.filter((r) => r.status === 201)
      expect(created.length).toBeGreaterThanOrEqual(1)
      expect(new Set(created.map((r) => r.text)).size).toBe(1)
      for (const r of answers) expect([201, 409]).toContain(r.status)
    }
    const list = JSON.parse((await fetchOf(b)('POST', '/automations/list', {}, shop)).text) as { data: { automations?: Array<{ title: string }>; results?: Array<{ title: string }> } }
    const titles = JSON.stringify(list)
    for (let round = 0; round < 5; round++) expect(titles.split(`"Once ${round}"`).length - 1).toBe(1)
    await closeAll(a, b)
  })

  it('push: a replica hears of each commit and catches up before any request asks', async () => {
    const a = await replica(undefined, { rateLimit: false })
    const b = await replica(a.twinName)
    const shop = a.world.shops[0]!.shop_id
    await fetchOf(a)('POST', '/dashboards/create', { name: 'Heard' }, shop)
    await a.exclusive(() => a.admin.setClock({ advance_ms: 5000 }))
    await expect.poll(() => b.twin.head, { interval: 5, timeout: 10_000 }).toBe(a.twin.head)
    expect(((await b.twin.metrics()) as { operations_caught_up_by_push: number }).operations_caught_up_by_push).toBeGreaterThan(0)
    expect(b.clock.now().toISOString()).toBe('2026-03-10T12:00:05.000Z')
    await closeAll(a, b)
  })

  it('a claim made while a write of the same replica asks for the lease does not take it (the write would wait on its own replica)', async () => {
    const a = await replica(undefined, { rateLimit: false })
    const slow = await replica(a.twinName, { holdWriteMs: 200 })
    const shop = a.world.shops[0]!.shop_id
    const held = Promise.resolve(slow.exclusive(() => slow.admin.setClock({ advance_ms: 1 })))
    await expect.poll(async () => (await a.twin.metrics() as { lease_acquisitions: number }).lease_acquisitions === 0 && (await slow.twin.metrics() as { lease_acquisitions: number }).lease_acquisitions === 1).toBe(true)
    // A's write asks for the lease (slow holds it) ...
    const waiting = Promise.resolve(a.exclusive(() => a.admin.setClock({ advance_ms: 1 })))
    // ... and a claim on A comes right when slow lets the lease go.
    await held
    expect(await a.idempotency.claim(shop, 'claimed-meanwhile')).toEqual({ kind: 'started' })
    // The claim's write queues behind (as the idempotency step does).
    const keyed = Promise.resolve(a.exclusive(() => a.admin.setClock({ advance_ms: 1 })))
    await waiting
    await keyed
    await a.sync()
    expect(a.clock.now().toISOString()).toBe('2026-03-10T12:00:00.003Z')
    await closeAll(a, slow)
  }, 30_000)

  it('the control API and the connector answer a change only once it is committed: the next request to another replica sees it', async () => {
    const { createServer } = await import('../mock/server.ts')
    // Each write held 300 ms before its commit: an answer sent before the commit would arrive first.
    const a = await replica(undefined, { holdWriteMs: 300 })
    const b = await replica(a.twinName)
    const server = createServer({ state: a })
    const url = await server.listen(0, '127.0.0.1')
    try {
      const moved = await fetch(`${url}/__admin/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ now: '2026-04-01T00:00:00.000Z' }) })
      expect(moved.status).toBe(200)
      await b.sync()
      expect(b.clock.now().toISOString()).toBe('2026-04-01T00:00:00.000Z')
      const registered = await fetch(`${url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Committed', redirect_uris: ['http://127.0.0.1:9/cb'] }) })
      expect(registered.status).toBe(201)
      const { client_id } = (await registered.json()) as { client_id: string }
      await b.sync()
      expect(Object.keys(b.connector.data.clients)).toContain(client_id)
    } finally {
      await server.close()
      await closeAll(a, b)
    }
  })

  it('a read costs one store round trip when nothing changed, rate limit on: the catch-up and the rate limit go in one script', async () => {
    const a = await replica()
    const shop = a.world.shops[0]!.shop_id
    const f = fetchOf(a)
    // The activity, journal and trace entries go on a connection of their own (store_commands counts the requests').
    const metrics = async () => (await a.twin.metrics()) as { store_commands: number; rate_limit_with_catch_up: number }
    await f('GET', '/shop/sps', undefined, shop)
    // Its activity entry sent (entries go in batches a few ms later), so the counts below are the reads'.
    await a.activity.entries()
    const first = await metrics()
    const before = await metrics()
    const own = before.store_commands - first.store_commands
    for (let i = 0; i < 5; i++) expect((await f('GET', '/shop/sps', undefined, shop)).status).toBe(200)
    const after = await metrics()
    expect(after.rate_limit_with_catch_up - before.rate_limit_with_catch_up).toBe(5)
    expect(after.store_commands - before.store_commands - own).toBe(5)
    await closeAll(a)
  })

  it('a keyed write costs two store round trips when nothing changed: its rate limit, claim and lease go with the catch-up, then the commit; on the replica that keeps the lease, its rate limit and claim, then the commit', async () => {
    // The lease kept 2 s after a write, not 50 ms: the writes below follow each other under it even
    // when a loaded machine holds this process between two of them (a release then is a command more).
    const a = await replica(undefined, { leaseIdleMs: 2000 })
    const shop = a.world.shops[0]!.shop_id
    const f = fetchOf(a)
    const body = automation('Two trips')
    const metrics = async () => (await a.twin.metrics()) as { store_commands: number; claims_with_catch_up: number; lease_acquisitions: number; pushes_received: number }
    const lease = async () => (await redisCommand(redis.socket, 'EXISTS', `st:{tw:${a.twinName}}:lease`)).trim()
    expect((await f('POST', '/automations/create', body, shop, { 'idempotency-key': 'trips-0' })).status).toBe(201)
    // The lease goes back when the replica stops writing: the next write takes it with its claim.
    await expect.poll(lease, { timeout: 30_000 }).toBe(':0')
    const first = await metrics()
    const before = await metrics()
    const own = before.store_commands - first.store_commands
    expect((await f('POST', '/automations/create', { ...body, title: 'Two trips 1' }, shop, { 'idempotency-key': 'trips-1' })).status).toBe(201)
    let after = await metrics()
    expect(after.claims_with_catch_up - before.claims_with_catch_up).toBe(1)
    expect(after.lease_acquisitions - before.lease_acquisitions).toBe(1)
    expect(after.store_commands - before.store_commands - own).toBe(2)
    // The next ones find the lease kept: the rate limit's slot and the claim in one round trip (the
    // store's head unchecked), then the commit.
    for (let i = 2; i <= 3; i++) expect((await f('POST', '/automations/create', { ...body, title: `Two trips ${i}` }, shop, { 'idempotency-key': `trips-${i}` })).status).toBe(201)
    const kept = await metrics()
    expect(kept.claims_with_catch_up - after.claims_with_catch_up).toBe(2)
    expect(kept.lease_acquisitions - after.lease_acquisitions).toBe(0)
    expect(kept.store_commands - after.store_commands - own).toBe(4)
    after = kept
    // No other replica listens: the commits publish nothing (the replica would only hear itself).
    expect(after.pushes_received).toBe(0)
    // The replay is one round trip: the rate limit's slot and the claim, which answers it.
    const replay = await f('POST', '/automations/create', { ...body, title: 'Two trips 3' }, shop, { 'idempotency-key': 'trips-3' })
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect((await metrics()).store_commands - after.store_commands - own).toBe(1)
    await closeAll(a)
  })

  it('without a rate limit, a keyed write on the replica that keeps the lease waits for one store round trip, its commit: the claim is decided on the records the log has, and the store hears of it without the write waiting', async () => {
    // A keeps the lease a minute after a write (not 50 ms): its writes below all find it kept, however a
    // loaded machine spaces them.
    const a = await replica(undefined, { rateLimit: false, leaseIdleMs: 60_000 })
    const b = await replica(a.twinName)
    const shop = a.world.shops[0]!.shop_id
    const f = fetchOf(a)
    const body = automation('One trip')
    type M = { store_commands: number; claims_under_lease: number; lease_acquisitions: number; commits: number }
    const metrics = async () => (await a.twin.metrics()) as M
    // A record another replica completed, before A took the lease: A has it from the log.
    expect((await fetchOf(b)('POST', '/automations/create', { ...body, title: 'From B' }, shop, { 'idempotency-key': 'one-b' })).status).toBe(201)
    // B gives the lease back when it stops writing (had A asked for it, both would give it up with
    // each commit for a second: replicas taking turns).
    await expect.poll(async () => (await redisCommand(redis.socket, 'EXISTS', `st:{tw:${a.twinName}}:lease`)).trim()).toBe(':0')
    expect((await f('POST', '/automations/create', body, shop, { 'idempotency-key': 'one-0' })).status).toBe(201)
    const first = await metrics()
    const before = await metrics()
    const own = before.store_commands - first.store_commands
    for (let i = 1; i <= 3; i++) expect((await f('POST', '/automations/create', { ...body, title: `One trip ${i}` }, shop, { 'idempotency-key': `one-${i}` })).status).toBe(201)
    const after = await metrics()
    expect(after.claims_under_lease - before.claims_under_lease).toBe(3)
    expect(after.lease_acquisitions - before.lease_acquisitions).toBe(0)
    expect(after.commits - before.commits).toBe(3)
    // Each: the claim sent to the store (not waited for) and the commit.
    expect(after.store_commands - before.store_commands - own).toBe(6)
    // Replays are answered here, from the log's records: B's too, and none costs a command.
    const replays = [await f('POST', '/automations/create', { ...body, title: 'One trip 3' }, shop, { 'idempotency-key': 'one-3' }), await f('POST', '/automations/create', { ...body, title: 'From B' }, shop, { 'idempotency-key': 'one-b' })]
    for (const r of replays) expect(r.headers.get('idempotent-replayed')).toBe('true')
    expect((await metrics()).store_commands - after.store_commands - own).toBe(0)
    // The same answers from B, which claims in the store.
    const fromB = await fetchOf(b)('POST', '/automations/create', { ...body, title: 'One trip 3' }, shop, { 'idempotency-key': 'one-3' })
    expect(fromB.text).toBe(replays[0]!.text)
    expect(fromB.headers.get('idempotent-replayed')).toBe('true')
    await closeAll(a, b)
  })

  it('a lone replica (no other listens on the twin) sends a keyed write nothing but its commit; its key in flight reads as processing there', async () => {
    // The lease kept a minute after a write (not 50 ms): every write below finds it kept, however spaced.
    const a = await replica(undefined, { rateLimit: false, holdWriteMs: 300, leaseIdleMs: 60_000 })
    const shop = a.world.shops[0]!.shop_id
    const f = fetchOf(a)
    const body = automation('Alone')
    type M = { store_commands: number; claims_under_lease: number }
    const metrics = async () => (await a.twin.metrics()) as M
    expect((await f('POST', '/automations/create', body, shop, { 'idempotency-key': 'alone-0' })).status).toBe(201)
    const first = await metrics()
    const before = await metrics()
    const own = before.store_commands - first.store_commands
    for (let i = 1; i <= 2; i++) expect((await f('POST', '/automations/create', { ...body, title: `Alone ${i}` }, shop, { 'idempotency-key': `alone-${i}` })).status).toBe(201)
    const after = await metrics()
    expect(after.claims_under_lease - before.claims_under_lease).toBe(2)
    expect(after.store_commands - before.store_commands - own).toBe(2)
    // A write held before its commit: its key reads as in flight on its replica.
    const held = f('POST', '/automations/create', { ...body, title: 'Alone 3' }, shop, { 'idempotency-key': 'alone-3' })
    await expect.poll(async () => (JSON.parse((await f('GET', '/idempotency/alone-3', undefined, shop)).text) as { idempotency?: { status: string } }).idempotency?.status, { interval: 10 }).toBe('processing')
    expect((await held).status).toBe(201)
    expect((JSON.parse((await f('GET', '/idempotency/alone-3', undefined, shop)).text) as { idempotency: { status: string } }).idempotency.status).toBe('completed')
    await closeAll(a)
  }, 30_000)

  it('a key claimed in the store by one replica, then on the replica that keeps the lease, acts once: whichever writes second finds the record in the log under the lease and replays it (spec: Idempotency)', async () => {
    // A's first write is held 3 s: B's claim and A's own must both come within it, which a loaded
    // machine does not promise within 1 s.
    const a = await replica(undefined, { rateLimit: false, holdWriteMs: 3000 })
    const b = await replica(a.twinName)
    const shop = a.world.shops[0]!.shop_id
    // Each replica's first request is slow (its code warms up): made before the race.
    for (const r of [a, b]) await fetchOf(r)('POST', '/automations/list', {}, shop)
    const body = automation('Settled')
    const record = () => redisCommand(redis.socket, 'HGET', `st:{tw:${a.twinName}}:g0:idem:${shop}:settled-1`, 'status')
    // A writes (held 3 s before its commit): it holds the lease.
    const first = Promise.resolve(a.exclusive(() => a.admin.setClock({ advance_ms: 1 })))
    await expect.poll(async () => ((await a.twin.metrics()) as { lease_acquisitions: number }).lease_acquisitions).toBe(1)
    // B claims the key in the store and asks for the lease; then A claims it under its lease (its
    // records have no such key; the store's claim, B's, is not waited for).
    const fromB = fetchOf(b)('POST', '/automations/create', body, shop, { 'idempotency-key': 'settled-1' })
    await expect.poll(record, { interval: 2 }).toContain('processing')
    const fromA = fetchOf(a)('POST', '/automations/create', body, shop, { 'idempotency-key': 'settled-1' })
    await expect.poll(async () => ((await a.twin.metrics()) as { claims_under_lease: number }).claims_under_lease).toBe(1)
    const answers = await Promise.all([fromB, fromA, first])
    const [rb, ra] = answers
    expect([rb.status, ra.status].sort()).toEqual([201, 201])
    expect(ra.text).toBe(rb.text)
    expect([rb.headers.get('idempotent-replayed'), ra.headers.get('idempotent-replayed')].filter(Boolean)).toEqual(['true'])
    await b.sync()
    const list = JSON.stringify(JSON.parse((await fetchOf(b)('POST', '/automations/list', {}, shop)).text))
    expect(list.split('"Settled"').length - 1).toBe(1)
    await closeAll(a, b)
  }, 30_000)

  it('the lease kept after a write goes back when the replica stops writing, never while a write of it runs (each write here takes longer than the idle time)', async () => {
    const a = await replica(undefined, { rateLimit: false, holdWriteMs: 120 })
    const lease = async () => (await redisCommand(redis.socket, 'EXISTS', `st:{tw:${a.twinName}}:lease`)).trim()
    type M = { commits: number; refused_commits: number; lease_acquisitions: number }
    await Promise.all(Array.from({ length: 3 }, () => Promise.resolve(a.exclusive(() => a.admin.setClock({ advance_ms: 1 })))))
    const m = (await a.twin.metrics()) as M
    expect([m.commits, m.refused_commits, m.lease_acquisitions]).toEqual([3, 0, 1])
    await expect.poll(lease).toBe(':0')
    await closeAll(a)
  }, 30_000)

  it("a completed record lives until 24 h on the twin's clock, as the log has it, whatever the store's GC did to its hash (a frozen clock, weeks): read and replayed on every replica", async () => {
    const a = await replica(undefined, { rateLimit: false })
    const b = await replica(a.twinName)
    const shop = a.world.shops[0]!.shop_id
    const body = automation('Lives on')
    const first = await fetchOf(a)('POST', '/automations/create', body, shop, { 'idempotency-key': 'gc-1' })
    expect(first.status).toBe(201)
    // The store's GC (its PEXPIRE, two days of wall clock) took the hash; the twin's clock has not moved.
    await redisCommand(redis.socket, 'DEL', `st:{tw:${a.twinName}}:g0:idem:${shop}:gc-1`)
    for (const r of [b, a]) {
      const record = JSON.parse((await fetchOf(r)('GET', '/idempotency/gc-1', undefined, shop)).text) as { idempotency: { status: string; response_status: number } }
      expect(record.idempotency).toMatchObject({ status: 'completed', response_status: 201 })
      const again = await fetchOf(r)('POST', '/automations/create', body, shop, { 'idempotency-key': 'gc-1' })
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.text).toBe(first.text)
    }
    await closeAll(a, b)
  })

  it('replicas that take turns writing (a round-robin balancer) give the lease up with each commit once one asked: the next takes it at once, not by asking and waiting for a hand-over', async () => {
    const a = await replica(undefined, { rateLimit: false })
    const b = await replica(a.twinName)
    const shop = a.world.shops[0]!.shop_id
    const body = automation('Turns')
    type M = { leases_handed_over: number; lease_acquisitions: number }
    const both = async () => (await Promise.all([a, b].map(async (r) => (await r.twin.metrics()) as M))).reduce((x, y) => ({ leases_handed_over: x.leases_handed_over + y.leases_handed_over, lease_acquisitions: x.lease_acquisitions + y.lease_acquisitions }))
    // Each has written once (the turns are seen from there).
    for (let i = 0; i < 4; i++) expect((await fetchOf(i % 2 ? b : a)('POST', '/automations/create', { ...body, title: `Turns ${i}` }, shop, { 'idempotency-key': `turns-${i}` })).status).toBe(201)
    const before = await both()
    for (let i = 4; i < 24; i++) expect((await fetchOf(i % 2 ? b : a)('POST', '/automations/create', { ...body, title: `Turns ${i}` }, shop, { 'idempotency-key': `turns-${i}` })).status).toBe(201)
    const after = await both()
    // Each write takes the lease (with its claim, or at once after it: the other's commit is news to
    // catch up with first), and none waits for the other to hand it over.
    expect(after.lease_acquisitions - before.lease_acquisitions).toBe(20)
    expect(after.leases_handed_over - before.leases_handed_over).toBe(0)
    await closeAll(a, b)
  })

  it('a keyed request refused before its idempotency step (its body, its shop, the rate limit) frees the claim and the lease made ahead: the corrected retry runs', async () => {
    const a = await replica()
    const b = await replica(a.twinName)
    const shop = a.world.shops[0]!.shop_id
    const f = fetchOf(a)
    const body = automation('Refused first')
    const lease = async () => (await redisCommand(redis.socket, 'EXISTS', `st:{tw:${a.twinName}}:lease`)).trim()
    const invalid = await f('POST', '/automations/create', { ...body, title: undefined }, shop, { 'idempotency-key': 'refused-1' })
    expect(invalid.status).toBe(400)
    expect(await lease()).toBe(':0')
    expect((await f('POST', '/automations/create', body, 'not-a-shop', { 'idempotency-key': 'refused-2' })).status).toBeGreaterThanOrEqual(400)
    expect(await lease()).toBe(':0')
    // Another replica writes at once (the lease is free), and the same keys with what was wrong put right run.
    await b.exclusive(() => b.admin.setClock({ advance_ms: 1 }))
    expect((await f('POST', '/automations/create', body, shop, { 'idempotency-key': 'refused-1' })).status).toBe(201)
    expect((await f('POST', '/automations/create', { ...body, title: 'Refused second' }, shop, { 'idempotency-key': 'refused-2' })).status).toBe(201)
    // Refused by the rate limit (frozen clock: this second's slots used up): nothing claimed.
    const answers = await Promise.all(Array.from({ length: 12 }, () => f('GET', '/shop/sps', undefined, shop)))
    expect(answers.some((r) => r.status === 429)).toBe(true)
    expect((await f('POST', '/automations/create', { ...body, title: 'Limited' }, shop, { 'idempotency-key': 'refused-3' })).status).toBe(429)
    await a.exclusive(() => a.admin.setClock({ advance_ms: 1000 }))
    expect((await f('POST', '/automations/create', { ...body, title: 'Limited' }, shop, { 'idempotency-key': 'refused-3' })).status).toBe(201)
    // Kept by A while it writes, given back when it stops.
    await expect.poll(lease).toBe(':0')
    await closeAll(a, b)
  })

  it('a burst of writes on one replica takes the lease once and commits each in order; another replica that asks gets it before the burst ends', async () => {
    const a = await replica(undefined, { rateLimit: false })
    const b = await replica(a.twinName)
    type LeaseMetrics = { lease_acquisitions: number; writes_under_held_lease: number; commits: number }
    const before = (await a.twin.metrics()) as LeaseMetrics
    const order: string[] = []
    const burst = Array.from({ length: 20 }, (_, i) => Promise.resolve(a.exclusive(() => a.admin.setClock({ advance_ms: 1000 }))).then(() => order.push(`a${i}`)))
    await Promise.all(burst)
    const after = (await a.twin.metrics()) as LeaseMetrics
    expect(after.lease_acquisitions - before.lease_acquisitions).toBe(1)
    expect(after.writes_under_held_lease - before.writes_under_held_lease).toBe(19)
    expect(after.commits - before.commits).toBe(20)
    await b.sync()
    expect(b.clock.now().toISOString()).toBe('2026-03-10T12:00:20.000Z')

    // A long burst on a replica of A's (each write held 1 ms, so the burst lasts and others can ask)
    // while B writes once: B is let in when it asks, not after the burst's last write.
    const slow = await replica(a.twinName, { holdWriteMs: 1 })
    order.length = 0
    const long = Array.from({ length: 180 }, (_, i) => Promise.resolve(slow.exclusive(() => slow.admin.setClock({ advance_ms: 1000 }))).then(() => order.push(`a${i}`)))
    await expect.poll(() => order.length, { interval: 1 }).toBeGreaterThanOrEqual(5)
    const one = Promise.resolve(b.exclusive(() => b.admin.setClock({ advance_ms: 1000 }))).then(() => order.push('b'))
    await Promise.all([...long, one])
    expect(order.indexOf('b')).toBeLessThan(order.indexOf('a179'))
    await slow.twin.close()
    await a.sync()
    await b.sync()
    expect(a.clock.now().toISOString()).toBe('2026-03-10T12:03:21.000Z')
    expect(b.clock.now().toISOString()).toBe(a.clock.now().toISOString())
    await closeAll(a, b)
  })

  it('replicas: the clock and reset are shared; reset empties idempotency records and rate counters everywhere', async () => {
    const a = await replica()
    const b = await replica(a.twinName)
    const shop = a.world.shops[0]!.shop_id
    await a.exclusive(() => a.admin.setClock({ advance_ms: 3_600_000 }))
    await b.sync()
    expect(b.clock.now().toISOString()).toBe('2026-03-10T13:00:00.000Z')
    for (let i = 0; i < 10; i++) await fetchOf(a)('GET', '/shop/sps', undefined, shop)
    expect((await fetchOf(b)('GET', '/shop/sps', undefined, shop)).status).toBe(429)
    await b.idempotency.claim(shop, 'kept')
    await a.exclusive(() => a.admin.reset())
    expect((await fetchOf(b)('GET', '/shop/sps', undefined, shop)).status).toBe(200)
    expect(await b.idempotency.lookup(shop, 'kept')).toBeUndefined()
    await closeAll(a, b)
  })

  it('restart: a replica started after every other stopped is the same twin, byte for byte', async () => {
    const a = await replica(undefined, { rateLimit: false })
    const shop = a.world.shops[0]!.shop_id
    const f = fetchOf(a)
    await f('POST', '/dashboards/create', { name: 'Kept' }, shop)
    await f('POST', '/automations/create', automation('Kept'), shop, { 'idempotency-key': 'kept-1' })
    await a.exclusive(() => a.admin.setClock({ advance_ms: 90_000 }))
    await a.exclusive(() => a.admin.run('halo/config', { refresh_ms: 1234 }))
    const sweep = async (s: MockState) => {
      const g = fetchOf(s)
      return [
        (await g('POST', '/dashboards/list', {}, shop)).text,
        (await g('POST', '/automations/list', {}, shop)).text,
        (await g('GET', '/idempotency/kept-1', undefined, shop)).text,
        (await g('POST', '/halo-effect', { date_range: { from: '2026-02-01', to: '2026-03-01' } }, shop)).text,
        s.clock.now().toISOString(),
      ]
    }
    const before = await sweep(a)
    await a.twin.close()
    const b = await replica(a.twinName)
    expect(await sweep(b)).toEqual(before)
    await b.twin.close()
  })

  it('a replica whose loop is held while its appends connection opens (its world being built on a busy machine) still starts', async () => {
    const { connectRedis } = await import('../mock/twin/redis/index.ts')
    const { createAppendBatch } = await import('../mock/twin/redis/batch.ts')
    const client = await connectRedis(redis.url)
    const batch = createAppendBatch(client, 'st:{tw:busy}:appends')
    // Its socket opening (a few ticks), then the loop held past the connect timeout (3 s), as a world
    // built on a loaded machine holds it: the first attempt times out and the connection reconnects.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => process.nextTick(resolve))
    const until = Date.now() + 3500
    while (Date.now() < until) Math.sqrt(until)
    await batch.ready()
    await batch.close()
    await client.quit()
  })

  it('store away: requests get 503 {error} (never a wrong answer or a hang), and the replica recovers when it is back', async () => {
    const own = await startRedis()
    const state = await inProcessReplica(own.url, 'away')
    const shop = state.world.shops[0]!.shop_id
    const f = fetchOf(state)
    expect((await f('POST', '/dashboards/create', { name: 'Before' }, shop)).status).toBe(201)
    await own.stop({ remove: false })
    const away = await f('POST', '/dashboards/list', {}, shop)
    expect(away.status).toBe(503)
    expect(JSON.parse(away.text).error).toMatch(/store/)
    await own.restart()
    await expect.poll(async () => (await f('POST', '/dashboards/list', {}, shop)).status, { timeout: 10_000, interval: 100 }).toBe(200)
    expect((await f('POST', '/dashboards/list', {}, shop)).text).toContain('"name":"Before"')
    await state.twin.close()
    await own.stop()
  })

  it('store away while a replica keeps the lease: a keyed write decided there gets 503 saying nothing was written (its commit never left), and its retry runs once the store is back', async () => {
    const own = await startRedis()
    // It keeps the lease (for a minute) after its first write.
    const state = await inProcessReplica(own.url, 'away-kept', { rateLimit: false, leaseIdleMs: 60_000 })
    const shop = state.world.shops[0]!.shop_id
    const f = fetchOf(state)
    const body = automation('Away')
    expect((await f('POST', '/automations/create', body, shop, { 'idempotency-key': 'away-0' })).status).toBe(201)
    await own.stop({ remove: false })
    const away = await f('POST', '/automations/create', { ...body, title: 'Away 1' }, shop, { 'idempotency-key': 'away-1' })
    expect(away.status).toBe(503)
    expect(JSON.parse(away.text).error).toMatch(/unavailable .*nothing was written/)
    await own.restart()
    await expect.poll(async () => (await f('POST', '/automations/create', { ...body, title: 'Away 1' }, shop, { 'idempotency-key': 'away-1' })).status, { timeout: 10_000, interval: 100 }).toBe(201)
    const list = JSON.stringify(JSON.parse((await f('POST', '/automations/list', {}, shop)).text))
    expect(list.split('"Away 1"').length - 1).toBe(1)
    await state.twin.close()
    await own.stop()
  })
})

describe('serve --store: refusals at the door (issue 23, item 2)', () => {
  it('an unreachable store: one line and exit 2', async () => {
    const { code, output } = await runCli(['serve', '--port', '0', '--store', 'unix:///nonexistent/redis.sock'])
    expect(code).toBe(2)
    expect(output.split('\n')[0]).toMatch(/^shoptwin( serve)?: cannot reach the shared store unix:\/\/\/nonexistent\/redis.sock/)
  })

  it('a replica whose flags differ from the twin it joins refuses to start and says why', async () => {
    const name = `flags${++twins}`
    await replica(name).then((s) => s.twin.close())
    const { code, output } = await runCli(['serve', '--port', '0', '--store', redis.url, '--twin', name, '--seed', '7'])
    expect(code).toBe(2)
    expect(output).toContain(`twin '${name}' already exists with other settings: seed 7 (the twin's: 42)`)
  })
})
