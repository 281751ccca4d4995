/**
 * What the shared journal and traces cost a replica: process CPU per cached read through the pipeline
 * (the server's fast path, `route.run`, 20 at a time), in memory and on Redis, with tracing on and off,
 * in one run (the store's own CPU is Redis's, not counted). The appends (activity, journal, traces)
 * leave the request's path, so this is CPU, not round trips (`npm run bench:store` counts those).
 *
 *   npm exec -- node bench/shared-appends.ts        BENCH_READS (default 4000)
 */
import { createOperationRoutes } from '../mock/handlers.ts'
import { createMockState, type MockState } from '../mock/index.ts'
import { openRedisTwin } from '../mock/twin/redis/index.ts'
import { startRedis } from '../test/support/redis.ts'

const NOW = '2026-03-10T12:00:00.000Z'
const reads = Number(process.env.BENCH_READS ?? 4000)

async function cpuPerRead(redisUrl: string | undefined, trace: boolean): Promise<number> {
  let state: MockState
  const options = { seed: 42, scale: 'default', now: NOW, rateLimit: false, responseCache: true, trace }
  if (redisUrl) {
    const opened = await openRedisTwin(redisUrl, `appends-${trace}`, { seed: 42, scale: 'default', rateLimit: false, createdAt: Date.parse(NOW), clock: { frozenAt: Date.parse(NOW), offset: 0 } }, { log: () => {} })
    state = createMockState({ ...options, createdAt: opened.config.createdAt, twin: opened.attach })
    await opened.start()
  } else state = createMockState(options)
  const route = createOperationRoutes(state, { baseUrl: 'http://bench' }).find((r) => r.op.operationId === 'listCrmAffiliates')!
  const sent = new Headers({ 'x-api-key': 'demo-key', 'x-shop-id': state.world.shops[0]!.shop_id, 'content-type': 'application/json' })
  const headers = { get: (name: string) => sent.get(name), forEach: (fn: (value: string, name: string) => void) => sent.forEach(fn) }
  const read = () => route.run({ method: 'POST', url: new URL('http://bench/affiliate/crm/list'), headers, bodyText: '{"page_size":50,"page_number":1}' })
  for (let i = 0; i < 500; i++) await read()
  const started = process.cpuUsage()
  for (let i = 0; i < reads; i += 20) await Promise.all(Array.from({ length: 20 }, read))
  // The last burst's appends go out too.
  await new Promise((resolve) => setTimeout(resolve, 50))
  const used = process.cpuUsage(started)
  await state.twin.close()
  return (used.user + used.system) / reads
}

const redis = await startRedis()
try {
  console.log(`\n## CPU per cached read (µs, ${reads} reads of POST /affiliate/crm/list, 50 rows)\n`)
  console.log('| tracing | in memory | on Redis | difference |')
  console.log('|---|---|---|---|')
  for (const trace of [false, true]) {
    const memory = await cpuPerRead(undefined, trace)
    const shared = await cpuPerRead(redis.url, trace)
    console.log(`| ${trace ? 'on' : 'off'} | ${memory.toFixed(0)} | ${shared.toFixed(0)} | +${(shared - memory).toFixed(0)} |`)
  }
} finally {
  await redis.stop()
}
process.exit(0)
