/**
 * `npm exec -- node bench/cluster-store.ts`: one replica's reads with its twin on a single Redis server
 * against its twin on a Redis Cluster's master (three masters on loopback), both over TCP, in one run
 * on one machine. What the Cluster protocol costs a replica (slot routing in the client), not what a
 * cluster gains (more masters for more twins: one machine here). Ratios, not absolute times.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startRedisCluster } from '../test/support/redis-cluster.ts'
import { API_KEY, freePort, load, start, stop, type Operation } from './targets.ts'

const duration = Number(process.env.BENCH_DURATION ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)

const cluster = await startRedisCluster({ masters: 3 })
const dir = mkdtempSync(join(tmpdir(), 'shoptwin-single-'))
const port = await freePort()
const single = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes'], { stdio: 'ignore' })
try {
  await new Promise((r) => setTimeout(r, 300))
  const onServer = await start('uncached', ['--store', `redis://127.0.0.1:${port}`, '--twin', 'bench'])
  const onCluster = await start('uncached', ['--store', cluster.seeds, '--twin', 'bench'])
  const shopId = ((await (await fetch(`${onServer.url}/account/shops`, { headers: { 'x-api-key': API_KEY } })).json()) as { data: Array<{ shop_id: string }> }).data[0]!.shop_id
  const crm: Operation = { name: 'POST /affiliate/crm/list (50)', method: 'POST', path: '/affiliate/crm/list', body: { page_size: 50, page_number: 1 } }
  console.log(`| run | single server req/s | cluster master req/s | ratio | p50 single | p50 cluster |`)
  console.log('|---|---|---|---|---|---|')
  await load(onServer, crm, shopId, 2, connections)
  await load(onCluster, crm, shopId, 2, connections)
  for (let run = 1; run <= 2; run++) {
    const x = await load(onServer, crm, shopId, duration, connections)
    const y = await load(onCluster, crm, shopId, duration, connections)
    console.log(`| ${run}: uncached read, ${connections} connections, ${duration} s | ${x.rps} | ${y.rps} | ${(y.rps / x.rps).toFixed(2)} | ${x.p50} ms | ${y.p50} ms |`)
  }
  await stop(onServer)
  await stop(onCluster)
} finally {
  single.kill('SIGTERM')
  await cluster.stop()
  rmSync(dir, { recursive: true, force: true })
}
