/**
 * The console's page, its two static assets and its live feed, on the standalone server under
 * `/__admin/console` (loopback-only like the rest of /__admin: mock/server.ts checks before calling
 * here). The page is one bundled script and one stylesheet from this server (no CDN) under a CSP that
 * allows nothing else: no inline script or style, no other origin.
 *
 * The feed is Server-Sent Events: `exchanges` (the summaries of finished traces, batched every 100 ms
 * so a busy twin sends a few events a second, not one per request; a client that falls behind loses
 * the oldest and is told how many) and `state` (clock, faults, tracing) every second.
 */
import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { MockState } from '../state.ts'
import type { TraceSummary } from '../trace/types.ts'

export const CONSOLE_PATH = '/__admin/console'

export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>shoptwin console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_PATH}/console.css">
<script type="module" src="${CONSOLE_PATH}/console.js"></script>
</head>
<body>
<div id="app"><p class="loading">Loading the console…</p></div>
</body>
</html>
`

/** The page, its assets and its feed: GET (and HEAD with it), for the server's Allow lists. */
export const CONSOLE_PAGE_ROUTES: ReadonlyArray<readonly [path: string, method: string]> = ['', '/console.js', '/console.css', '/events'].map((p) => [`${CONSOLE_PATH}${p}`, 'GET'] as const)

/** Summaries a client may have waiting; beyond it the oldest are dropped (the page keeps its own bound). */
const MAX_PENDING = 10_000

let assets: Record<string, { type: string; body: Buffer }> | undefined
function assetOf(name: string): { type: string; body: Buffer } | undefined {
  assets ??= {
    'console.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/console.js', import.meta.url)) },
    'console.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/console.css', import.meta.url)) },
  }
  return assets[name]
}

const SECURITY_HEADERS = { 'content-security-policy': CONSOLE_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' }

/** The state the page shows in its header, pushed every second. */
export function consoleState(state: MockState) {
  return { now: state.clock.now().toISOString(), frozen: state.clock.frozen, faults: state.faults.list(), tracing: state.traces.enabled, traceCapacity: state.traces.capacity, seed: state.seed, today: state.today, rateLimit: state.rateLimit }
}

/** Answers the console's own paths; false for any other path (the control API's handlers answer those). */
export function serveConsole(state: MockState, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (path !== CONSOLE_PATH && !path.startsWith(`${CONSOLE_PATH}/`)) return false
  const rest = path.slice(CONSOLE_PATH.length).replace(/^\//, '')
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    if (rest === '' || rest === 'events' || assetOf(rest)) {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: `${req.method} is not allowed on ${path}` }))
      return true
    }
    return false
  }
  if (rest === '') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(PAGE)), ...SECURITY_HEADERS })
    res.end(req.method === 'HEAD' ? undefined : PAGE)
    return true
  }
  if (rest === 'events') {
    // A HEAD gets the feed's head and ends (RFC 9110 9.3.2): a stream it would never read is not opened.
    if (req.method === 'HEAD') {
      res.writeHead(200, EVENTS_HEAD)
      res.end()
    } else events(state, req, res)
    return true
  }
  const asset = assetOf(rest)
  if (!asset) return false
  res.writeHead(200, { 'content-type': asset.type, 'content-length': String(asset.body.length), ...SECURITY_HEADERS })
  res.end(req.method === 'HEAD' ? undefined : asset.body)
  return true
}

const EVENTS_HEAD = { 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive', ...SECURITY_HEADERS }

function events(state: MockState, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, EVENTS_HEAD)
  // Lets the server close while a console is open: the stream does not hold the socket in keep-alive.
  res.shouldKeepAlive = false
  // A shared twin's feed may answer after the page left: nothing is written then.
  const send = (event: string, data: unknown) => void (res.writableEnded || res.destroyed || res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`))
  res.write('retry: 2000\n\n')
  let pending: TraceSummary[] = []
  let dropped = 0
  // The traces kept so far, then the live ones; after a reset, the (empty) list again. On a shared
  // twin, every replica's (mock/twin/redis/traces.ts).
  const backlog = (rows: TraceSummary[]) => {
    pending = []
    dropped = 0
    send('exchanges', { exchanges: rows, dropped: 0, backlog: true })
  }
  const row = (summary: TraceSummary) => {
    pending.push(summary)
    if (pending.length > MAX_PENDING) {
      dropped += pending.length - MAX_PENDING
      pending = pending.slice(-MAX_PENDING)
    }
  }
  const shared = state.twin.traces
  let unsubscribe: () => void
  if (shared?.open) {
    unsubscribe = shared.open(backlog, row)
    send('state', consoleState(state))
  } else {
    backlog(state.traces.list())
    send('state', consoleState(state))
    unsubscribe = state.traces.subscribe(row, () => backlog([]))
  }
  const server = (req.socket as { server?: { listening: boolean } }).server
  const flush = setInterval(() => {
    // The server is closing: end the stream so the close need not wait for the page to leave.
    if (server && !server.listening) return void (stop(), res.end())
    if (!pending.length) return
    send('exchanges', { exchanges: pending, dropped })
    pending = []
    dropped = 0
  }, 100)
  const tick = setInterval(() => send('state', consoleState(state)), 1000)
  flush.unref()
  tick.unref()
  const stop = () => {
    clearInterval(flush)
    clearInterval(tick)
    unsubscribe()
  }
  req.on('close', stop)
  res.on('close', stop)
}
