/**
 * Twins on a Redis Cluster (issue 23: "keep all of a twin's keys in one hash slot, so a Redis Cluster
 * can spread twins across nodes"): three masters on loopback, two twins whose names hash to different
 * masters, two replicas (`serve --store` processes) for each. `npm run test:replicas`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedis } from '../support/redis.ts'
import { CLUSTER_CERT, type ClusterNode, startNode, startRedisCluster, type TestCluster } from '../support/redis-cluster.ts'
import { startTcpSwitch } from '../support/tcp-switch.ts'
import { automation, automationTitles, call, count, FROZEN, firstShop, load, readSweep, type Replica, startReplica } from '../support/replicas.ts'

let cluster: TestCluster
/** Every replica started here, stopped at the end whatever failed (a stopped one is left as it is). */
const started: Replica[] = []
beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 })
})
afterAll(async () => {
  await Promise.all(started.map((r) => r.stop()))
  await cluster?.stop()
})

interface Twin {
  name: string
  /** The twin's hash slot, and the port of the master that serves it. */
  slot: number
  node: number
  store: string
  replicas: Replica[]
  shop: string
}

/** `n` twin names (`prefix-i`) whose slots are served by `n` different masters. */
async function twinsOnDifferentNodes(prefix: string, n: number): Promise<Array<Pick<Twin, 'name' | 'slot' | 'node'>>> {
  const found: Array<Pick<Twin, 'name' | 'slot' | 'node'>> = []
  // Terminates: names hash evenly over the slots; three masters serve a third each.
  for (let i = 0; found.length < n; i++) {
    const name = `${prefix}-${i}`
    const slot = await cluster.slotOf(`st:{tw:${name}}:cfg`)
    const node = await cluster.nodeOf(slot)
    if (!found.some((t) => t.node === node)) found.push({ name, slot, node })
  }
  made.push(...found)
  return found
}

/** Two replicas of a twin on `store`, the first one first (it creates the twin). */
async function replicasOf(twin: Pick<Twin, 'name'>, store: string, args: string[]): Promise<Replica[]> {
  const replicas: Replica[] = []
  for (let i = 0; i < 2; i++) {
    replicas.push(await startReplica({ store, twin: twin.name, args }))
    started.push(replicas[i]!)
  }
  return replicas
}

/** Every twin made here: each key on the cluster must belong to one of them. */
const made: Array<Pick<Twin, 'name' | 'slot' | 'node'>> = []

/**
 * Scans every node: each key is under a twin's hash tag, in that twin's slot, on the master that
 * serves it. Returns each twin's keys (without the twin's prefix).
 */
async function keysByTwin(): Promise<Map<string, string[]>> {
  const seen = new Map<string, string[]>(made.map((t) => [t.name, []]))
  for (const node of cluster.nodes) {
    const keys = (await cluster.cli(node.port, ['--scan'])).split('\n').filter(Boolean)
    const slots = keys.length ? (await cluster.cli(node.port, [], keys.map((k) => `CLUSTER KEYSLOT ${k}`).join('\n'))).trim().split('\n').map(Number) : []
    keys.forEach((key, i) => {
      const t = made.find((tw) => key.startsWith(`st:{tw:${tw.name}}:`))
      expect(t, `a key outside every twin's hash tag: ${key}`).toBeDefined()
      expect({ key, slot: slots[i], node: node.port }).toEqual({ key, slot: t!.slot, node: t!.node })
      seen.get(t!.name)!.push(key.slice(`st:{tw:${t!.name}}:`.length))
    })
  }
  return seen
}

/** Whether a twin's keys include each kind (a name, or a prefix ending in ':'). */
const expectKinds = (name: string, keys: string[], kinds: string[]) => {
  for (const kind of kinds) expect(keys.some((k) => k === kind || (kind.endsWith(':') && k.startsWith(kind))), `${name}: ${kind}`).toBe(true)
}

/** A seed that is not the twin's own master: the replicas' first commands meet MOVED. */
const otherSeed = (node: number) => cluster.seed(cluster.nodes.findIndex((n) => n.port !== node))

const stopAll = (twins: Twin[]) => Promise.all(twins.flatMap((t) => t.replicas.map((r) => r.stop())))

describe('twins on a Redis Cluster: each twin in one slot, twins spread over the masters', () => {
  let twins: Twin[] = []
  const args = ['--rate-limit', 'off']

  beforeAll(async () => {
    const [x, y] = await twinsOnDifferentNodes('farm', 2)
    // One twin's replicas are given one node (not its own), the other's every node.
    const placed = [
      { ...x!, store: otherSeed(x!.node) },
      { ...y!, store: cluster.seeds },
    ]
    twins = await Promise.all(placed.map(async (t) => ({ ...t, replicas: await replicasOf(t, t.store, args), shop: '' })))
    for (const t of twins) t.shop = firstShop(t.replicas[0]!)
  })
  afterAll(async () => {
    await stopAll(twins)
  })

  it(`two twins on two masters, two replicas each: ${count(500)} rounds of "write on A, read on B" per twin at once, 0 stale; neither twin sees the other's writes`, async () => {
    expect(twins[0]!.node).not.toBe(twins[1]!.node)
    const stale = await Promise.all(
      twins.map(async (t) => {
        const [a, b] = t.replicas
        const board = JSON.parse((await call(a!.url, 'POST', '/dashboards/create', t.shop, { name: `${t.name}-0` })).text) as { data: { id: string } }
        let misses = 0
        for (let i = 1; i <= count(500); i++) {
          const wrote = await call(a!.url, 'POST', '/dashboards/update', t.shop, { dashboard_id: board.data.id, name: `${t.name}-${i}` })
          expect(wrote.status, wrote.text).toBe(200)
          const read = JSON.parse((await call(b!.url, 'POST', '/dashboards/get', t.shop, { dashboard_id: board.data.id })).text) as { data: { name: string } }
          if (read.data.name !== `${t.name}-${i}`) misses++
        }
        return misses
      }),
    )
    expect(stale).toEqual([0, 0])
    // Each twin lists its own board, not the other's.
    for (const [t, other] of [[twins[0]!, twins[1]!], [twins[1]!, twins[0]!]] as const) {
      const names = (JSON.parse((await call(t.replicas[1]!.url, 'POST', '/dashboards/list', t.shop, {})).text) as { data: { results?: Array<{ name: string }>; dashboards?: Array<{ name: string }> } }).data
      const all = JSON.stringify(names)
      expect(all).toContain(`"${t.name}-${count(500)}"`)
      expect(all).not.toContain(`"${other.name}-`)
    }
    // The second replica heard the first one's commits on the twin's sharded channel.
    for (const t of twins) {
      const metrics = JSON.parse((await call(t.replicas[1]!.url, 'GET', '/__admin/metrics', undefined)).text) as Record<string, unknown>
      expect(metrics).toMatchObject({ store_connected: true, twin: t.name, lag: 0, store_errors: 0 })
      expect(metrics.pushes_received).toBeGreaterThan(0)
    }
  })

  it('a restart of every replica keeps each twin: a sweep of reads and the clock are byte-identical', async () => {
    const sweeps = async () => Promise.all(twins.map((t) => readSweep(t.replicas[1]!.url, t.shop, `${t.name}-key`)))
    for (const t of twins) {
      await call(t.replicas[0]!.url, 'POST', '/__admin/clock', undefined, { now: FROZEN })
      const created = await call(t.replicas[0]!.url, 'POST', '/automations/create', t.shop, automation(`${t.name}-restart`), { 'idempotency-key': `${t.name}-key` })
      expect(created.status, created.text).toBe(201)
      await call(t.replicas[1]!.url, 'POST', '/__admin/clock', undefined, { advance_ms: 3_600_000 })
    }
    const before = await sweeps()
    await stopAll(twins)
    // Started again the other way round: the first twin from every node, the second from one.
    for (const t of twins) t.store = t.store === cluster.seeds ? otherSeed(t.node) : cluster.seeds
    twins = await Promise.all(twins.map(async (t) => ({ ...t, replicas: await replicasOf(t, t.store, args) })))
    // Compared as text, so a difference is shown line by line (a nested array's diff is cut short).
    expect((await sweeps()).flat().join('\n')).toBe(before.flat().join('\n'))
    for (const t of twins) expect(before[twins.indexOf(t)]!.join('\n')).toContain(`${t.name}-restart`)
  })

  it("all of a twin's keys are in its slot, on its master, and its channels are sharded there", async () => {
    // Every kind of key: the journal and traces (read on each replica), and a reset's new generation.
    for (const t of twins) {
      for (const r of t.replicas) {
        expect((await call(r.url, 'GET', '/__admin/requests', undefined)).status).toBe(200)
        expect((await call(r.url, 'GET', '/__admin/traces', undefined)).status).toBe(200)
      }
    }
    expect((await call(twins[0]!.replicas[0]!.url, 'POST', '/__admin/reset', undefined, {})).status).toBe(200)
    expect((await call(twins[0]!.replicas[1]!.url, 'POST', '/automations/create', twins[0]!.shop, automation('after-reset'), { 'idempotency-key': 'after-reset' })).status).toBe(201)
    expect((await call(twins[0]!.replicas[0]!.url, 'GET', '/__admin/requests', undefined)).status).toBe(200)

    const seen = await keysByTwin()
    // Sharded channels (SSUBSCRIBE) live on the node of their slot: the twin's news and flush barrier.
    for (const node of cluster.nodes) {
      const channels = (await cluster.cli(node.port, ['PUBSUB', 'SHARDCHANNELS'])).split('\n').filter(Boolean).sort()
      expect(channels).toEqual(twins.filter((t) => t.node === node.port).flatMap((t) => [`st:{tw:${t.name}}:appends`, `st:{tw:${t.name}}:news`]))
    }
    // The workload touched each kind of key the store has (so none of them escaped the check).
    for (const t of twins) expectKinds(t.name, seen.get(t.name)!, ['cfg', 'head', 'log', 'activity', 'activity:id', 'journal:id', 'trace:ids', 'g0:journal', 'g0:tr:feed', 'g0:tr:meta', 'g0:tr:req', 'g0:tr:res', 'g0:idemidx', 'g0:idem:'])
    // The reset: a new generation.
    expectKinds(twins[0]!.name, seen.get(twins[0]!.name)!, ['gen', 'g1:idem:', 'g1:journal'])
  })

  it("a twin's slot moved to another master while a replica writes: every keyed write lands once, the other replica reads them, and the twin's channels follow the slot", async () => {
    const t = twins[1]!
    const [a, b] = t.replicas
    const to = cluster.nodes.map((n) => n.port).find((port) => !twins.some((tw) => tw.node === port))!
    const metrics = async (r: Replica) => JSON.parse((await call(r.url, 'GET', '/__admin/metrics', undefined)).text) as Record<string, number>
    const written: string[] = []
    let moving = true
    const writer = (async () => {
      // Terminates: writes go on while the slot moves, then five more.
      for (let n = 0, after = 0; moving || after++ < 5; n++) {
        const key = `move-${n}`
        for (let attempt = 0; ; attempt++) {
          const reply = await call(a!.url, 'POST', '/automations/create', t.shop, automation(key), { 'idempotency-key': key })
          if (reply.status === 201) break
          // Never a wrong answer: the store was busy (503, retried with the same key), or a commit whose
          // outcome was unknown holds its key in flight (409) until the twin's clock passes 60 s.
          expect([503, 409], reply.text).toContain(reply.status)
          if (reply.status === 409) await call(a!.url, 'POST', '/__admin/clock', undefined, { advance_ms: 61_000 })
          if (attempt > 100) throw new Error(`${key} never written: ${reply.status} ${reply.text}`)
        }
        written.push(key)
      }
    })()
    try {
      await cluster.moveSlot(t.slot, to)
    } finally {
      moving = false
      await writer
    }
    t.node = to
    made.find((m) => m.name === t.name)!.node = to
    expect(await cluster.nodeOf(t.slot)).toBe(to)
    expect((await automationTitles(b!.url, t.shop, 'move-')).sort()).toEqual([...written].sort())
    // The subscriptions move to the slot's new master (each client learns the new map, at the latest
    // at its next refresh of it); then news and the flush barrier work as before.
    const deadline = Date.now() + 60_000
    // Terminates: the deadline bounds the loop.
    while ((await cluster.cli(to, ['PUBSUB', 'SHARDNUMSUB', `st:{tw:${t.name}}:news`, `st:{tw:${t.name}}:appends`])).trim().split('\n').filter((_, i) => i % 2 === 1).some((n) => Number(n) < 2)) {
      if (Date.now() > deadline) throw new Error(`the twin's channels did not follow its slot to ${to}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    const pushes = (await metrics(b!)).pushes_received!
    const board = JSON.parse((await call(a!.url, 'POST', '/dashboards/create', t.shop, { name: 'moved-0' })).text) as { data: { id: string } }
    for (let i = 1; i <= 20; i++) {
      expect((await call(a!.url, 'POST', '/dashboards/update', t.shop, { dashboard_id: board.data.id, name: `moved-${i}` })).status).toBe(200)
      const read = JSON.parse((await call(b!.url, 'POST', '/dashboards/get', t.shop, { dashboard_id: board.data.id })).text) as { data: { name: string } }
      expect(read.data.name).toBe(`moved-${i}`)
    }
    // Terminates: the deadline bounds the loop (a push arrives a moment after its commit).
    while ((await metrics(b!)).pushes_received! <= pushes) {
      if (Date.now() > deadline) throw new Error('no news heard after the move')
      await new Promise((r) => setTimeout(r, 50))
    }
    // The journal on B lists A's writes (its barrier reached A on the new master).
    const journal = JSON.parse((await call(b!.url, 'GET', '/__admin/requests', undefined)).text) as { requests: Array<{ path: string; headers: Record<string, string> }> }
    expect(journal.requests.filter((r) => r.path === '/dashboards/update').length).toBeGreaterThanOrEqual(20)
    const seen = await keysByTwin()
    expectKinds(t.name, seen.get(t.name)!, ['cfg', 'head', 'log', 'g0:idem:'])
  })
})

describe('the rate limit on a Redis Cluster', () => {
  it('exact across a twin\'s replicas: frozen clock, 100 concurrent requests on one key and shop over its 2 replicas, for two twins on two masters at once: 10 succeed on each, 90 get 429 with Retry-After', async () => {
    const placed = await twinsOnDifferentNodes('rate', 2)
    const twins = await Promise.all(placed.map(async (t) => ({ ...t, replicas: await replicasOf(t, cluster.seeds, []) })))
    try {
      const results = await Promise.all(
        twins.map(async (t) => {
          await call(t.replicas[0]!.url, 'POST', '/__admin/clock', undefined, { now: FROZEN })
          return load(2, { urls: t.replicas.map((r) => r.url), method: 'GET', path: '/shop/sps', shop: firstShop(t.replicas[0]!), count: 100 })
        }),
      )
      for (const replies of results) {
        expect(replies.filter((r) => r.status === 200)).toHaveLength(10)
        const refused = replies.filter((r) => r.status === 429)
        expect(refused).toHaveLength(90)
        for (const r of refused) expect(r.retryAfter).toBe('1')
      }
      // The rate limit's windows are the twin's keys too.
      const seen = await keysByTwin()
      for (const t of twins) expectKinds(t.name, seen.get(t.name)!, ['g0:rl:', 'g0:rd:'])
    } finally {
      await Promise.all(twins.flatMap((t) => t.replicas.map((r) => r.stop())))
    }
  })
})

describe('the write lease on a Redis Cluster', () => {
  it("is kept alive by the replica's lease keeper (its own thread's cluster connection): a write held 5 leases long commits", async () => {
    const [t] = await twinsOnDifferentNodes('lease', 1)
    // A lease of 1.5 s, renewed every 0.5 s: lost only if the keeper thread is not scheduled for a second
    // (a 300 ms lease could be lost to a loaded 2-core machine's scheduling, not to a fault of the keeper).
    const replica = await startReplica({ store: cluster.seeds, twin: t!.name, env: { SHOPTWIN_LEASE_MS: '1500', SHOPTWIN_HOLD_WRITE_MS: '7500' } })
    started.push(replica)
    const created = await call(replica.url, 'POST', '/dashboards/create', firstShop(replica), { name: 'held' })
    expect(created.status, created.text).toBe(201)
    expect(replica.output()).toMatch(/holds write 1 for 7500 ms/)
    const metrics = JSON.parse((await call(replica.url, 'GET', '/__admin/metrics', undefined)).text) as Record<string, number>
    expect(metrics).toMatchObject({ commits: 1, refused_commits: 0 })
    await replica.stop()
  })
})

describe("a twin's master away on a Redis Cluster", () => {
  it('its replica answers 503 {error}, says so in one line, reports store_connected false, and says when the master is back', async () => {
    const [t] = await twinsOnDifferentNodes('away', 1)
    const replica = await startReplica({ store: cluster.seeds, twin: t!.name })
    started.push(replica)
    const shop = firstShop(replica)
    expect((await call(replica.url, 'GET', '/shop/sps', shop)).status).toBe(200)
    const master = cluster.nodes.find((n) => n.port === t!.node)!
    // Stalled (SIGSTOP) for less than the cluster's node timeout: the cluster client stays 'ready'.
    master.process.kill('SIGSTOP')
    try {
      const refused = await call(replica.url, 'GET', '/shop/sps', shop)
      expect(refused.status).toBe(503)
      // Said as what it is (which store, the twin's master), not as the cluster client's "Too many Cluster redirections".
      expect(JSON.parse(refused.text).error).toMatch(new RegExp(`^The shared state store is unavailable \\(the twin's master 127\\.0\\.0\\.1:${master.port} does not answer \\(.+\\)\\); retry shortly$`))
      const metrics = JSON.parse((await call(replica.url, 'GET', '/__admin/metrics', undefined)).text) as Record<string, unknown>
      expect(metrics.store_connected).toBe(false)
    } finally {
      master.process.kill('SIGCONT')
    }
    await expect.poll(async () => (await call(replica.url, 'GET', '/shop/sps', shop)).status, { interval: 100, timeout: 20_000 }).toBe(200)
    const metrics = JSON.parse((await call(replica.url, 'GET', '/__admin/metrics', undefined)).text) as Record<string, unknown>
    expect(metrics.store_connected).toBe(true)
    const lines = replica.output().split('\n')
    expect(lines.filter((l) => /the shared store redis:\/\/127\.0\.0\.1:\d+(,127\.0\.0\.1:\d+)+ is unreachable \(the twin's master 127\.0\.0\.1:\d+ does not answer/.test(l))).toHaveLength(1)
    expect(lines.filter((l) => /the shared store .* is back after/.test(l))).toHaveLength(1)
    await replica.stop()
  }, 60_000)
})

describe('a store that turns into a Redis Cluster under a replica connected to it as one server', () => {
  it("MOVED, then CLUSTERDOWN: every request gets 503 {error} saying what happened, the operator one line per episode saying what to do; 200 again once the address answers as the twin's server", async () => {
    const redis = await startRedis()
    const root = mkdtempSync(join(tmpdir(), 'shoptwin-turned-'))
    const proxy = await startTcpSwitch({ path: redis.socket })
    let lone: ClusterNode | undefined
    try {
      const name = 'turned'
      const master = await cluster.nodeOf(await cluster.slotOf(`st:{tw:${name}}:cfg`))
      const elsewhere = cluster.nodes.find((n) => n.port !== master)!.port
      const replica = await startReplica({ store: `redis://127.0.0.1:${proxy.port}`, twin: name, args: ['--rate-limit', 'off'] })
      started.push(replica)
      const shop = firstShop(replica)
      const sps = () => call(replica.url, 'GET', '/shop/sps', shop)
      const metrics = async () => JSON.parse((await call(replica.url, 'GET', '/__admin/metrics', undefined)).text) as Record<string, unknown>
      expect((await sps()).status).toBe(200)

      // The address now leads to a node of a cluster whose node for the twin's slot is another.
      proxy.switchTo({ port: elsewhere })
      // The first answers may say the connection closed (the client reconnects through the proxy).
      await expect.poll(async () => (await sps()).text, { interval: 100, timeout: 20_000 }).toMatch(/answers as a Redis Cluster node \(MOVED \d+ 127\.0\.0\.1:\d+/)
      for (const reply of [await sps(), await call(replica.url, 'POST', '/dashboards/create', shop, { name: 'never' })]) {
        expect(reply.status, reply.text).toBe(503)
        expect(JSON.parse(reply.text).error).toMatch(/this replica connected to it as one server; this replica cannot use it until its operator restarts it$/)
      }
      expect(await metrics()).toMatchObject({ store_connected: false, topology_episodes: 1 })

      proxy.switchTo({ path: redis.socket })
      await expect.poll(async () => (await sps()).status, { interval: 100, timeout: 20_000 }).toBe(200)
      expect(await metrics()).toMatchObject({ store_connected: true })

      // A cluster node that serves no slot: CLUSTERDOWN.
      lone = await startNode(root, 0)
      proxy.switchTo({ port: lone.port })
      await expect.poll(async () => (await sps()).text, { interval: 100, timeout: 20_000 }).toMatch(/answers CLUSTERDOWN \(Hash slot not served\): it is a node of a Redis Cluster that does not serve the twin's slot \d+/)
      proxy.switchTo({ path: redis.socket })
      await expect.poll(async () => (await sps()).status, { interval: 100, timeout: 20_000 }).toBe(200)

      // Nothing was written meanwhile; one line when each episode started (with what to do), one when it ended.
      expect(JSON.parse((await call(replica.url, 'POST', '/dashboards/list', shop, {})).text).data.dashboards.some((d: { name: string }) => d.name === 'never')).toBe(false)
      const lines = replica.output().split('\n')
      // What the replica said, shown when a count is off.
      const said = replica.output()
      // The topology episode's lines ("requests get 503 while it answers so"): the appends' episode may
      // start with the same reason and advice, or with the reconnection's, whichever failed first after
      // the switch (its flush's timer or the connection's return): not counted here.
      expect(lines.filter((l) => /answers as a Redis Cluster node \(MOVED .*; requests get 503 while it answers so\. To do: point redis:\/\/127\.0\.0\.1:\d+\/0 back at the server the twin was on, or restart this replica/.test(l)), said).toHaveLength(1)
      expect(lines.filter((l) => /answers CLUSTERDOWN .*; requests get 503 while it answers so\. To do: point .* back at the server the twin was on, or restart this replica once that cluster serves every slot/.test(l)), said).toHaveLength(1)
      expect(lines.filter((l) => /answers as the store it connected to again, after/.test(l)), said).toHaveLength(2)
      expect(await metrics()).toMatchObject({ store_connected: true, topology_episodes: 2 })
      await replica.stop()
    } finally {
      await proxy.close()
      await redis.stop()
      if (lone && lone.process.exitCode === null) {
        const exited = new Promise((r) => lone!.process.once('exit', r))
        lone.process.kill('SIGTERM')
        await exited
      }
      rmSync(root, { recursive: true, force: true })
    }
  }, 120_000)
})

describe('a twin on a Redis Cluster over TLS (rediss://, nodes that speak only TLS, to clients and to each other)', () => {
  it('two replicas given different seeds are one twin: a keyed write on one is replayed by the other, which reads it; the keys are in the twin\'s slot', async () => {
    const secure = await startRedisCluster({ masters: 3, tls: true })
    const replicas: Replica[] = []
    try {
      const env = { NODE_EXTRA_CA_CERTS: CLUSTER_CERT }
      for (const seed of [secure.seed(0), secure.seeds]) replicas.push(await startReplica({ store: seed, twin: 'over-tls', args: ['--rate-limit', 'off'], env }))
      const [a, b] = replicas as [Replica, Replica]
      expect(a.output()).toMatch(/Shared twin 'over-tls' on rediss:\/\/127\.0\.0\.1:\d+ \(created/)
      const shop = firstShop(a)
      const first = await call(a.url, 'POST', '/automations/create', shop, automation('over-tls'), { 'idempotency-key': 'tls-cluster-1' })
      expect(first.status).toBe(201)
      const again = await call(b.url, 'POST', '/automations/create', shop, automation('over-tls'), { 'idempotency-key': 'tls-cluster-1' })
      expect(again).toMatchObject({ status: 201, text: first.text })
      expect(await automationTitles(b.url, shop, 'over-tls')).toHaveLength(1)
      // Every key the twin wrote is on the master that serves its slot (redis-cli over TLS).
      const slot = await secure.slotOf('st:{tw:over-tls}:cfg')
      const keys = (await secure.cli(await secure.nodeOf(slot), ['--scan', '--pattern', 'st:{tw:over-tls}:*'])).split('\n').filter(Boolean)
      expect(keys).toContain('st:{tw:over-tls}:log')
    } finally {
      await Promise.all(replicas.map((r) => r.stop()))
      await secure.stop()
    }
  }, 120_000)
})
