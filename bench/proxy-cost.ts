/**
 * What `shoptwin proxy`'s forwarding costs per request, without the noise of a load generator and an
 * upstream sharing its cores (`npm run bench:proxy-cost`). The proxy's req/s against direct (the proxy
 * section of `npm run bench`) on a 2-core machine is a matter of CPU per request: three busy processes
 * share two cores. This measures that CPU alone:
 *
 * - the upstream is canned: each operation's answer is taken once from `shoptwin serve` (its bytes,
 *   head and body) and given back from memory, here, for every request;
 * - the client is here too: keep-alive connections, one request at a time each (closed loop);
 * - the process measured is a child on a core of its own (`taskset`; this process on the other): the
 *   raw HTTP forwarding floor of the proxy section (`bench/proxy-floor.ts raw`, what forwarding HTTP
 *   costs a Node process here), `shoptwin proxy`'s forwarding alone (`forward`: proxy/server.ts,
 *   nothing graded or kept) and `shoptwin proxy` as the CLI runs it (`proxy`: the exchanges of a round
 *   wait to be graded, as they do under traffic, and are graded after the round is read), interleaved
 *   round by round, user and system CPU per request read from /proc.
 *
 * forward − raw is what the proxy's own forwarding work costs (strict parsing of heads, routing,
 * framing, the record of each exchange and the comparison of a repeated answer); proxy − forward what
 * keeping the records until they are graded costs on the request's path (proxy/backlog.ts; the grading
 * itself is not in it).
 * Env: COST_ROUNDS (default 5), COST_SCALE (requests per round, times; default 1), COST_CONNECTIONS (default 16),
 * COST_BASE (another checkout of shoptwin, with its node_modules: its forwarding is measured in the same rounds, a
 * column of its own, to judge a change of the proxy against the tree before it; each round's order is turned).
 */
import { spawn } from 'node:child_process'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { API_KEY, bodyOf, cpuMs, freePort, headersFor, HOST, pin, settle, start, stop, type Operation } from './targets.ts'

const rounds = Number(process.env.COST_ROUNDS ?? 5)
const scale = Number(process.env.COST_SCALE ?? 1)
const connections = Number(process.env.COST_CONNECTIONS ?? 16)
const base = process.env.COST_BASE
const END = Buffer.from('\r\n\r\n')
const LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i

/** The operations of the proxy section, with requests per round (about 2-3 s each on a 2-core machine). */
async function operations(url: string): Promise<{ shopId: string; ops: Array<Operation & { requests: number }> }> {
  const shops = (await (await fetch(`${url}/account/shops`, { headers: { 'x-api-key': API_KEY } })).json()) as { data: Array<{ shop_id: string }> }
  const today = ((await (await fetch(`${url}/__admin/clock`)).json()) as { now: string }).now.slice(0, 10)
  const daysBefore = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10)
  const { STAT_KEYS } = (await import('../openapi/index.ts')) as { STAT_KEYS: readonly string[] }
  return {
    shopId: shops.data[0]!.shop_id,
    ops: [
      { name: 'GET /health', method: 'GET', path: '/health', requests: 40_000 },
      { name: 'POST /affiliate/crm/list (50, filtered)', method: 'POST', path: '/affiliate/crm/list', body: { page_size: 50, page_number: 1, filters: { min_videos: 1 } }, requests: 20_000 },
      { name: 'POST /shop/stats (all keys, 90 d, charts)', method: 'POST', path: '/shop/stats', body: { date_range: { from: daysBefore(90), to: daysBefore(1) }, stats: [...STAT_KEYS], include_charts: true }, requests: 10_000 },
      { name: 'POST /ads/creatives (100)', method: 'POST', path: '/ads/creatives', body: { page_size: 100 }, requests: 20_000 },
    ],
  }
}

/** A request's bytes as a client sends them. */
function requestBytes(op: Operation, shopId: string): Buffer {
  const body = bodyOf(op) ?? ''
  const headers = { host: HOST, ...headersFor(shopId), ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) }
  return Buffer.from(`${op.method} ${op.path} HTTP/1.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`)
}

/** The whole first message read from `socket` (head and Content-Length body). */
function readMessage(socket: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got: Buffer = Buffer.alloc(0)
    socket.on('error', reject)
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk])
      const end = got.indexOf(END)
      if (end < 0) return
      const length = end + 4 + Number(LENGTH.exec(got.toString('latin1', 0, end + 2))?.[1] ?? 0)
      if (got.length >= length) resolve(got.subarray(0, length))
    })
  })
}

/** The upstream's answer to `request`, as bytes. */
async function answerOf(url: string, request: Buffer): Promise<Buffer> {
  const { hostname, port } = new URL(url)
  const socket = connect(Number(port), hostname)
  socket.write(request)
  const answer = await readMessage(socket)
  socket.destroy()
  return answer
}

/** Answers every request (head and Content-Length body) with `answer()`'s bytes. */
async function cannedUpstream(answer: () => Buffer): Promise<{ url: string; close(): void }> {
  const server = createServer({ noDelay: true }, (socket) => {
    let pending: Buffer = Buffer.alloc(0)
    socket.on('error', () => undefined)
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
      for (;;) {
        const end = pending.indexOf(END)
        if (end < 0) return
        const length = end + 4 + Number(LENGTH.exec(pending.toString('latin1', 0, end + 2))?.[1] ?? 0)
        if (pending.length < length) return
        pending = pending.subarray(length)
        socket.write(answer())
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve))
  return { url: `http://${HOST}:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}

/** `count` requests over `connections` keep-alive connections, one at a time each; resolves with req/s. */
async function drive(port: number, request: Buffer, count: number): Promise<number> {
  let left = count
  const started = performance.now()
  await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = connect({ port, host: HOST, noDelay: true })
          let got = 0
          let want = -1
          const send = () => {
            if (left-- <= 0) return void (socket.destroy(), resolve())
            got = 0
            want = -1
            socket.write(request)
          }
          socket.on('connect', send)
          socket.on('error', reject)
          socket.on('data', (chunk: Buffer) => {
            if (want < 0) {
              const end = chunk.indexOf(END)
              want = end + 4 + Number(LENGTH.exec(chunk.toString('latin1', 0, end + 2))?.[1] ?? 0)
            }
            got += chunk.length
            if (got >= want) send()
          })
        }),
    ),
  )
  return count / ((performance.now() - started) / 1000)
}

const pinned = pin(process.pid, '0')

/** A proxy of `kind` (bench/proxy-floor.ts) in front of `upstream`, on core 1 when it can be pinned. */
async function proxyOf(kind: 'raw' | 'forward' | 'proxy' | 'base', upstream: string) {
  const port = await freePort()
  const floor = kind === 'base' ? `${base}/bench/proxy-floor.ts` : new URL('./proxy-floor.ts', import.meta.url).pathname
  const args = [process.execPath, floor, kind === 'base' ? 'forward' : kind, upstream, String(port), HOST]
  const child = pinned ? spawn('taskset', ['-c', '1', ...args], { stdio: ['ignore', 'ignore', 'inherit'] }) : spawn(args[0]!, args.slice(1), { stdio: ['ignore', 'ignore', 'inherit'] })
  for (let i = 0; ; i++) {
    try {
      await new Promise<void>((resolve, reject) => connect(port, HOST, function (this: Socket) { this.destroy(); resolve() }).on('error', reject))
      break
    } catch (error) {
      if (i > 200) throw error
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return { kind, child, port }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const shoptwin = await start('shoptwin')
const { shopId, ops } = await operations(shoptwin.url)
const cases = []
for (const op of ops) {
  const request = requestBytes(op, shopId)
  cases.push({ op, request, answer: await answerOf(shoptwin.url, request) })
}
await stop(shoptwin)

console.log(`shoptwin proxy's forwarding: CPU per request against the raw HTTP forwarding floor (Node ${process.version}; ${connections} connections, closed loop; canned upstream; ${rounds} rounds, interleaved; ${pinned ? 'the proxy on core 1, the rest on core 0' : 'not pinned: taskset or a second core missing'})\n`)
console.log(`| Operation | answer bytes | raw floor: user + system µs/req (median; least) | forward: user + system µs/req (median; least) | proxy, records kept: user + system µs/req (median; least) | forward − raw, user | proxy − forward, user + system | req/s raw, forward, proxy |${base ? ` forward at ${base} (median; least) | forward − that, user + system |` : ''}`)
console.log(`|---|---|---|---|---|---|---|---|${base ? '---|---|' : ''}`)
for (const { op, request, answer } of cases) {
  const upstream = await cannedUpstream(() => answer)
  const proxies = [await proxyOf('raw', upstream.url), await proxyOf('forward', upstream.url), await proxyOf('proxy', upstream.url), ...(base ? [await proxyOf('base', upstream.url)] : [])]
  const count = Math.round(op.requests * scale)
  const rows = new Map<string, Array<{ user: number; system: number; rps: number }>>()
  for (const proxy of proxies) await drive(proxy.port, request, Math.round(count / 4)) // warm-up
  for (let round = 0; round < rounds; round++) {
    // The order turned round to round: no kind always runs right after the same one.
    for (const proxy of [...proxies.slice(round % proxies.length), ...proxies.slice(0, round % proxies.length)]) {
      const pid = proxy.child.pid
      const [user0, system0] = [cpuMs(pid, 'user'), cpuMs(pid, 'system')]
      const rps = await drive(proxy.port, request, count)
      // Read at once: the last answer was read whole, and the proxy's grading starts after a quiet spell (QUIET_MS).
      const us = (ms: number) => (ms * 1000) / count
      ;(rows.get(proxy.kind) ?? rows.set(proxy.kind, []).get(proxy.kind)!).push({ user: us(cpuMs(pid, 'user') - user0), system: us(cpuMs(pid, 'system') - system0), rps })
      // The exchanges that waited are graded now, before the next round.
      await settle(pid)
    }
  }
  const cell = (kind: string) => {
    const r = rows.get(kind)!
    const user = median(r.map((x) => x.user))
    const system = median(r.map((x) => x.system))
    return { user, system, text: `${user.toFixed(0)} + ${system.toFixed(0)}; ${Math.min(...r.map((x) => x.user + x.system)).toFixed(0)}`, rps: median(r.map((x) => x.rps)) }
  }
  const raw = cell('raw')
  const forward = cell('forward')
  const kept = cell('proxy')
  const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(0)}`
  const before = base ? cell('base') : undefined
  console.log(`| \`${op.name}\` | ${answer.length.toLocaleString('en-US')} | ${raw.text} | ${forward.text} | ${kept.text} | ${signed(forward.user - raw.user)} | ${signed(kept.user + kept.system - forward.user - forward.system)} | ${raw.rps.toFixed(0)}, ${forward.rps.toFixed(0)}, ${kept.rps.toFixed(0)} |${before ? ` ${before.text} | ${signed(forward.user + forward.system - before.user - before.system)} |` : ''}`)
  for (const proxy of proxies) {
    proxy.child.kill('SIGTERM')
    await new Promise((resolve) => proxy.child.once('exit', resolve))
  }
  upstream.close()
}
