/**
 * `npm run bench:proxy-memory`: the memory of `shoptwin proxy` (no --inject) as traffic grows. One
 * shoptwin upstream, the proxy in front, N requests (PROXY_MEMORY_REQUESTS, default 100,000) in four
 * equal parts of mixed traffic (reads of three sizes, keyed writes with a fresh Idempotency-Key each).
 * After each part: the proxy process's resident memory (VmRSS) and peak (VmHWM); with
 * PROXY_MEMORY_IN_PROCESS=1 (and node --expose-gc) the proxy runs in this process instead and the
 * JS heap in use after a full GC is printed: what the proxy keeps, without the allocator's slack.
 * Flat figures = memory bounded; figures growing with each part = something kept per exchange.
 */
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { API_KEY, headersFor, settle, start, stop } from './targets.ts'

const total = Number(process.env.PROXY_MEMORY_REQUESTS ?? 100_000)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20)

const mb = (pid: number, field: 'VmRSS' | 'VmHWM') => Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024)

const inProcess = process.env.PROXY_MEMORY_IN_PROCESS === '1'
const gc = (globalThis as { gc?: () => void }).gc
if (inProcess && !gc) throw new Error('PROXY_MEMORY_IN_PROCESS=1 needs node --expose-gc')
const upstream = await start('shoptwin')
const running = inProcess ? await (await import('../proxy/index.ts')).startProxy({ upstream: upstream.url }) : undefined
const proxy = running ? { url: running.url, child: process, stop: () => running.stop() } : await start('proxy', [upstream.url])
const heapMb = () => {
  gc!()
  return Math.round(process.memoryUsage().heapUsed / 1024 / 1024)
}
const memory = (pid: number) => (inProcess ? `JS heap after GC ${heapMb()} MB (process RSS ${mb(pid, 'VmRSS')} MB)` : `RSS ${mb(pid, 'VmRSS')} MB, peak ${mb(pid, 'VmHWM')} MB`)
try {
  const shops = (await (await fetch(`${upstream.url}/account/shops`, { headers: { 'x-api-key': API_KEY } })).json()) as { data: Array<{ shop_id: string }> }
  const headers = headersFor(shops.data[0]!.shop_id)
  let written = 0
  const requests: autocannon.Request[] = [
    { method: 'GET', path: '/health' },
    { method: 'POST', path: '/affiliate/crm/list', headers, body: JSON.stringify({ page_size: 50, page_number: 1, filters: { min_videos: 1 } }) },
    { method: 'POST', path: '/ads/creatives', headers, body: JSON.stringify({ page_size: 100 }) },
    { method: 'POST', path: '/groups/create', headers, body: JSON.stringify({ name: 'bench group' }), setupRequest: (r: autocannon.Request) => ({ ...r, headers: { ...r.headers, 'idempotency-key': `mem-${process.pid}-${++written}` } }) },
  ]
  console.log(`shoptwin proxy memory${inProcess ? ' (in process)' : ''}, ${total} requests through it in 4 parts (${connections} connections)`)
  console.log(`after start: ${memory(proxy.child.pid!)}`)
  for (let part = 1; part <= 4; part++) {
    const result = await autocannon({ url: proxy.url, connections, amount: total / 4, requests })
    // The exchanges that waited to be graded (proxy/backlog.ts) are graded once the load stops: what is measured is what stays.
    if (running) while (running.waiting()) await new Promise((r) => setTimeout(r, 50))
    else await settle(proxy.child.pid)
    console.log(`after ${(part * total) / 4} requests: ${memory(proxy.child.pid!)} (${Math.round(result.requests.average)} req/s, non-2xx ${result.non2xx}, errors ${result.errors})`)
  }
} finally {
  if (running) await running.stop()
  else await stop(proxy as Awaited<ReturnType<typeof start>>)
  await stop(upstream)
}
