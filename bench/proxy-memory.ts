/**
 * `npm run bench:proxy-memory`: the memory of `shoptwin proxy` (no --inject) as traffic grows. One
 * shoptwin upstream, the proxy in front, N requests (PROXY_MEMORY_REQUESTS, default 100,000) in four
 * equal parts of mixed traffic (reads of three sizes, keyed writes with a fresh Idempotency-Key each);
 * the proxy's resident memory (VmRSS) and peak (VmHWM) printed after each part. Flat figures = memory
 * bounded; figures growing with each part = something kept per exchange. Loopback only.
 */
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { API_KEY, headersFor, start, stop } from './targets.ts'

const total = Number(process.env.PROXY_MEMORY_REQUESTS ?? 100_000)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20)

const mb = (pid: number, field: 'VmRSS' | 'VmHWM') => Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024)

const upstream = await start('shoptwin')
const proxy = await start('proxy', [upstream.url])
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
  console.log(`shoptwin proxy memory, ${total} requests through it in 4 parts (${connections} connections)`)
  console.log(`after start: RSS ${mb(proxy.child.pid!, 'VmRSS')} MB`)
  for (let part = 1; part <= 4; part++) {
    const result = await autocannon({ url: proxy.url, connections, amount: total / 4, requests })
    console.log(`after ${(part * total) / 4} requests: RSS ${mb(proxy.child.pid!, 'VmRSS')} MB, peak ${mb(proxy.child.pid!, 'VmHWM')} MB (${Math.round(result.requests.average)} req/s, non-2xx ${result.non2xx}, errors ${result.errors})`)
  }
} finally {
  await stop(proxy)
  await stop(upstream)
}
