/**
 * `node bench/stats-compute.ts`: the cost of computing the heaviest stats answer (all keys, 90 days,
 * daily charts, the default world's main shop) against the cost of serialising it to JSON, in the same
 * process and run (issue 16, item 8: computing it should cost no more than serialising it). The
 * window moves by a day at each call, over more windows than the stats keep series for, so every
 * call is a first-time request (a client's test suite sends mostly those).
 *
 * Options: BENCH_ROUNDS (batches, default 100), BENCH_SCALE (default "default").
 */
import { STAT_KEYS } from '../openapi/index.ts'
import { createMockState } from '../mock/index.ts'
import { computeShopStats } from '../mock/lib/stats/compute.ts'

const rounds = Number(process.env.BENCH_ROUNDS ?? 100)
const state = createMockState({ seed: 42, scale: (process.env.BENCH_SCALE ?? 'default') as 'default', rateLimit: false })
const shop = state.world.shops[0]!
const axis = state.world.axis
const today = axis.dayIndex(state.today)
/** 90-day windows ending 1 to 100 days before today. */
const requests = Array.from({ length: 100 }, (_, i) => ({ date_range: { from: axis.date(today - 90 - i), to: axis.date(today - 1 - i) }, stats: [...STAT_KEYS], include_charts: true }))

/**
 * Median over `rounds` batches of 10 calls of `fn`, in ms of this process's CPU time per call (after as
 * many warm-up calls): CPU time, not wall time, so that other processes on the machine count less.
 */
function medianMs(fn: () => unknown): number {
  for (let i = 0; i < rounds; i++) fn()
  const times: number[] = []
  for (let i = 0; i < rounds; i++) {
    const t0 = process.cpuUsage()
    for (let j = 0; j < 10; j++) fn()
    const { user, system } = process.cpuUsage(t0)
    times.push((user + system) / 10_000)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

const answers = requests.map((request) => ({ data: { stats: computeShopStats(state, shop, request) } }))
const bytes = Buffer.byteLength(JSON.stringify(answers[0]))
// Alternated, so both see the same load from whatever else runs on the machine.
const compute: number[] = []
const serialise: number[] = []
for (let turn = 0; turn < 3; turn++) {
  let next = 0
  compute.push(medianMs(() => computeShopStats(state, shop, requests[next++ % requests.length]!)))
  serialise.push(medianMs(() => JSON.stringify(answers[next++ % answers.length])))
}
const best = (xs: number[]) => Math.min(...xs)
console.log(`POST /shop/stats, ${STAT_KEYS.length} keys, 90 days, daily charts (${bytes} bytes), windows moving by a day, CPU time per call, median of ${rounds} batches of 10 per turn, 3 turns`)
console.log(`compute   ms: ${compute.map((x) => x.toFixed(3)).join(' / ')}`)
console.log(`serialise ms: ${serialise.map((x) => x.toFixed(3)).join(' / ')}`)
const ratio = best(compute) / best(serialise)
console.log(`${ratio <= 1 ? '✓' : '✗'} compute / serialise: ${ratio.toFixed(2)} (goal <= 1)`)
