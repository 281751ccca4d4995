/**
 * The console page (served at /__admin/console, bundled by mock/console/build.ts into
 * mock/console/assets/console.js). Preact with htm: 4 kB of runtime and no compile step for its
 * templates (tagged template literals), so the page is plain TypeScript bundled by esbuild, which the
 * project already has. Everything it shows comes from the control API of the same origin.
 */
import { render, type ComponentChildren } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { html } from 'htm/preact'
import type { Trace, TraceSummary } from '../../trace/types.ts'



/** Exchanges the page keeps (the oldest dropped first): the list stays light at any rate. */
export const MAX_ROWS = 10_000
const ROW_HEIGHT = 30
const OVERSCAN = 8

interface LiveState {
  now: string
  frozen: boolean
  faults: Array<{ id: number; route: string; status?: number; message?: string; latency_ms?: number; remaining: number }>
  tracing: boolean
  traceCapacity: number
  seed: number
  today: string
  rateLimit: boolean
}

async function api<T = any>(path: string, init?: { method?: string; body?: unknown }): Promise<T> {
  const response = await fetch(`/__admin${path}`, {
    method: init?.method ?? 'GET',
    headers: init?.body === undefined ? {} : { 'content-type': 'application/json' },
    body: init?.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const text = await response.text()
  const body = text ? JSON.parse(text) : null
  if (!response.ok) throw new Error(body?.error ?? `${response.status}`)
  return body as T
}

const statusClass = (status: number) => (status === 0 ? 's0' : status < 300 ? 's2' : status < 400 ? 's3' : status < 500 ? 's4' : 's5')
const shortShop = (shop: string | null) => (shop ? shop.slice(0, 8) : '-')
const timeOf = (iso: string) => iso.slice(11, 23)

/** A shell-safe single-quoted word. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

/** A curl command that sends the request again; the key is a placeholder (the trace never holds it). */
export function curlOf(trace: Trace, origin: string): string {
  const { request } = trace
  const lines = [`curl -i -X ${request.method} ${quote(`${origin}${request.url}`)}`]
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'x-api-key' || name === 'authorization') lines.push(`-H ${quote(`x-api-key: <API_KEY>`)}`)
    else if (['x-shop-id', 'content-type', 'idempotency-key', 'prefer'].includes(name)) lines.push(`-H ${quote(`${name}: ${value}`)}`)
  }
  if (trace.via === 'mcp') lines.push(`-H ${quote('x-api-key: <API_KEY>')}`)
  if (request.body !== null && request.body !== undefined) lines.push(`--data-raw ${quote(typeof request.body === 'string' ? request.body : JSON.stringify(request.body))}`)
  return lines.join(' \\\n  ')
}

function matches(row: TraceSummary, filter: Filter): boolean {
  if (filter.shop && !(row.shop ?? '').toLowerCase().includes(filter.shop.toLowerCase())) return false
  if (filter.key && !(row.key ?? '').includes(filter.key)) return false
  if (filter.status && !String(row.status).startsWith(filter.status.replace(/x+$/i, ''))) return false
  if (filter.operation && !`${row.operationId ?? ''} ${row.method} ${row.path}`.toLowerCase().includes(filter.operation.toLowerCase())) return false
  return true
}

interface Filter {
  shop: string
  key: string
  status: string
  operation: string
}

function App() {
  const rows = useRef<TraceSummary[]>([])
  const seen = useRef(new Set<string>())
  const [version, setVersion] = useState(0)
  const [dropped, setDropped] = useState(0)
  const [connected, setConnected] = useState(false)
  const [live, setLive] = useState<LiveState | undefined>()
  const [filter, setFilter] = useState<Filter>({ shop: '', key: '', status: '', operation: '' })
  const [selected, setSelected] = useState<string | undefined>()
  const [tab, setTab] = useState('faults')
  const [notice, setNotice] = useState('')

  useEffect(() => {
    const source = new EventSource('/__admin/console/events')
    let scheduled = false
    source.onopen = () => setConnected(true)
    source.onerror = () => setConnected(false)
    source.addEventListener('exchanges', (event) => {
      const { exchanges, dropped: lost, backlog } = JSON.parse((event as MessageEvent).data) as { exchanges: TraceSummary[]; dropped: number; backlog?: boolean }
      if (backlog) {
        // The whole list again (on connecting, and after a reset emptied the traces).
        rows.current = []
        seen.current.clear()
        setDropped(0)
      }
      // Rows come in the order the twin kept them; on a shared twin the ids of two replicas do not
      // follow that order, so a row is known by its id, not by being above the last one.
      const all = rows.current
      for (const row of exchanges) {
        if (seen.current.has(row.id)) continue
        seen.current.add(row.id)
        all.push(row)
      }
      if (all.length > MAX_ROWS) {
        setDropped((d) => d + all.length - MAX_ROWS)
        for (const gone of all.slice(0, all.length - MAX_ROWS)) seen.current.delete(gone.id)
        rows.current = all.slice(all.length - MAX_ROWS)
      }
      if (lost) setDropped((d) => d + lost)
      // One render per frame however many events arrive.
      if (!scheduled) {
        scheduled = true
        requestAnimationFrame(() => {
          scheduled = false
          setVersion((v) => v + 1)
        })
      }
    })
    source.addEventListener('state', (event) => setLive(JSON.parse((event as MessageEvent).data) as LiveState))
    return () => source.close()
  }, [])

  const filtered = useMemo(() => {
    const f = filter.shop || filter.key || filter.status || filter.operation
    return f ? rows.current.filter((r) => matches(r, filter)) : rows.current
  }, [version, filter])

  const act = async (what: string, run: () => Promise<unknown>) => {
    try {
      await run()
      setNotice(what)
      setLive((await (async () => ({ ...(live as LiveState), ...(await api('/clock')), faults: (await api('/faults')).faults }))()) as LiveState)
    } catch (error) {
      setNotice(`${what} failed: ${(error as Error).message}`)
    }
  }
  const reset = () =>
    act('World reset', async () => {
      await api('/reset', { method: 'POST', body: {} })
      rows.current = []
      seen.current.clear()
      setSelected(undefined)
      setVersion((v) => v + 1)
    })

  return html`
    <header class="top">
      <h1>shoptwin console</h1>
      <span class=${`conn ${connected ? 'on' : 'off'}`} role="status">${connected ? 'live' : 'disconnected'}</span>
      <span class="meta">${live ? `seed ${live.seed} · today ${live.today} · rate limit ${live.rateLimit ? 'on' : 'off'} · tracing ${live.tracing ? 'on' : 'off'}` : ''}</span>
      <${Clock} live=${live} act=${act} />
      <button type="button" class="danger" onClick=${reset}>Reset world</button>
    </header>
    <p class="notice" role="status" aria-live="polite">${notice}</p>
    <main class="layout">
      <section class="exchanges" aria-labelledby="exchanges-title">
        <div class="section-head">
          <h2 id="exchanges-title">Exchanges</h2>
          <span class="count">${filtered.length} shown · ${rows.current.length} kept${dropped ? ` · ${dropped} older dropped` : ''}</span>
        </div>
        <${Filters} filter=${filter} setFilter=${setFilter} />
        <${ExchangeList} rows=${filtered} selected=${selected} select=${setSelected} version=${version} />
        ${filtered.length === 0 ? html`<p class="empty">${rows.current.length ? 'No exchange matches the filters.' : 'No exchange yet: send a request to the twin and it appears here.'}</p>` : ''}
      </section>
      <section class="detail" aria-labelledby="detail-title">
        <h2 id="detail-title">Trace</h2>
        <${TraceView} id=${selected} />
      </section>
    </main>
    <section class="panels" aria-label="Controls and state">
      <div class="tabs" role="tablist" aria-label="Panels">
        ${[
          ['faults', 'Faults'],
          ['limits', 'Rate limits & idempotency'],
          ['state', 'Area state'],
          ['connector', 'Connector'],
        ].map(([id, label]) => html`<button type="button" role="tab" id=${`tab-${id}`} aria-controls="panel" aria-selected=${tab === id} class=${tab === id ? 'tab active' : 'tab'} onClick=${() => setTab(id!)}>${label}</button>`)}
      </div>
      <div class="panel" id="panel" role="tabpanel" tabindex="0" aria-labelledby=${`tab-${tab}`}>
        ${tab === 'faults' ? html`<${Faults} live=${live} act=${act} />` : tab === 'limits' ? html`<${Limits} version=${version} />` : tab === 'state' ? html`<${Areas} />` : html`<${Connector} version=${version} />`}
      </div>
    </section>
  `
}

function Clock({ live, act }: { live: LiveState | undefined; act: (what: string, run: () => Promise<unknown>) => void }) {
  const [at, setAt] = useState('')
  const advance = (ms: number, label: string) => act(`Clock advanced ${label}`, () => api('/clock', { method: 'POST', body: { advance_ms: ms } }))
  return html`
    <div class="clock" role="group" aria-label="Mock clock">
      <span class="now"><span class="label">Clock</span> <time>${live ? live.now.replace('T', ' ').replace('Z', ' UTC') : '…'}</time> <span class=${live?.frozen ? 'pill frozen' : 'pill running'}>${live?.frozen ? 'frozen' : 'running'}</span></span>
      ${live?.frozen
        ? html`<button type="button" onClick=${() => act('Clock running', () => api('/clock', { method: 'POST', body: { now: live.now, running: true } }))}>Run</button>`
        : html`<button type="button" onClick=${() => act('Clock frozen', () => api('/clock', { method: 'POST', body: { now: live?.now } }))}>Freeze</button>`}
      <button type="button" onClick=${() => advance(1000, '1 s')}>+1 s</button>
      <button type="button" onClick=${() => advance(60_000, '1 min')}>+1 min</button>
      <button type="button" onClick=${() => advance(3_600_000, '1 h')}>+1 h</button>
      <button type="button" onClick=${() => advance(86_400_000, '1 day')}>+1 day</button>
      <form
        class="set"
        onSubmit=${(e: Event) => {
          e.preventDefault()
          if (at) act(`Clock set to ${at}`, () => api('/clock', { method: 'POST', body: { now: new Date(`${at}Z`).toISOString() } }))
        }}
      >
        <label for="clock-at">Set (UTC)</label>
        <input id="clock-at" type="datetime-local" step="1" value=${at} onInput=${(e: Event) => setAt((e.target as HTMLInputElement).value)} />
        <button type="submit">Set</button>
      </form>
    </div>
  `
}

function Filters({ filter, setFilter }: { filter: Filter; setFilter: (f: Filter) => void }) {
  const field = (name: keyof Filter, label: string, placeholder: string) => html`
    <label class="filter">
      <span>${label}</span>
      <input type="search" name=${name} placeholder=${placeholder} value=${filter[name]} onInput=${(e: Event) => setFilter({ ...filter, [name]: (e.target as HTMLInputElement).value.trim() })} />
    </label>
  `
  return html`<div class="filters">${field('shop', 'Shop', 'shop id')}${field('key', 'Key', 'key_… id')}${field('status', 'Status', '4xx, 429…')}${field('operation', 'Operation', 'operationId or path')}</div>`
}

/** Only the rows in view are in the DOM: 10,000 exchanges cost as much to show as 30. */
function ExchangeList({ rows, selected, select }: { rows: TraceSummary[]; selected: string | undefined; select: (id: string) => void; version: number }) {
  const box = useRef<HTMLDivElement>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [height, setHeight] = useState(480)
  const [follow, setFollow] = useState(true)
  useEffect(() => {
    const el = box.current!
    const measure = () => setHeight(el.clientHeight)
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(el)
    return () => observer.disconnect()
  }, [])
  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = box.current.scrollHeight
  })
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN)
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN)
  const visible = rows.slice(first, last)
  return html`
    <div class="list-head" aria-hidden="true"><span>#</span><span>time</span><span>request</span><span>status</span><span>operation</span><span>key</span><span>shop</span><span>ms</span></div>
    <div
      class="list"
      ref=${box}
      tabindex="0"
      aria-label="Exchanges, newest last"
      onScroll=${(e: Event) => {
        const el = e.target as HTMLDivElement
        setScrollTop(el.scrollTop)
        setFollow(el.scrollTop + el.clientHeight >= el.scrollHeight - ROW_HEIGHT)
      }}
    >
      <ol class="rows" style=${{ height: `${rows.length * ROW_HEIGHT}px` }}>
        ${visible.map(
          (row, i) => html`
            <li key=${row.id} style=${{ transform: `translateY(${(first + i) * ROW_HEIGHT}px)` }}>
              <button type="button" class=${row.id === selected ? 'row selected' : 'row'} aria-pressed=${row.id === selected} onClick=${() => select(row.id)}>
                <span class="id">${row.id}</span>
                <span class="time">${timeOf(row.time)}</span>
                <span class="req"><b>${row.method}</b> ${row.path}${row.query}</span>
                <span class=${`status ${statusClass(row.status)}`}>${row.status || 'drop'}</span>
                <span class="op">${row.operationId ?? 'no operation'}${row.via === 'mcp' ? ' (MCP)' : ''}</span>
                <span class="key">${row.key ?? '-'}</span>
                <span class="shop" title=${row.shop ?? ''}>${shortShop(row.shop)}</span>
                <span class="ms">${row.durationMs.toFixed(1)}</span>
              </button>
            </li>
          `,
        )}
      </ol>
    </div>
  `
}

function Block({ title, children }: { title: string; children: ComponentChildren }) {
  return html`<div class="block"><h3>${title}</h3>${children}</div>`
}

const pretty = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2))

function TraceView({ id }: { id: string | undefined }) {
  const [trace, setTrace] = useState<Trace | undefined>()
  const [error, setError] = useState('')
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    setTrace(undefined)
    setError('')
    setCopied(false)
    if (id) api<Trace>(`/traces/${id}`).then(setTrace, (e: Error) => setError(e.message))
  }, [id])
  if (!id) return html`<p class="empty">Click an exchange to see why the twin answered as it did.</p>`
  if (error) return html`<p class="empty">${error}</p>`
  if (!trace) return html`<p class="empty">Loading trace ${id}…</p>`
  const curl = curlOf(trace, location.origin)
  return html`
    <div class="trace">
      <p class="trace-title"><span class=${`status ${statusClass(trace.status)}`}>${trace.status || 'drop'}</span> <b>${trace.method}</b> ${trace.path}${trace.query} <span class="muted">trace ${trace.id} · ${trace.operationId ?? 'no operation'} · ${trace.time}</span></p>
      <${Block} title="Decisions">
        <ol class="decisions">
          ${trace.decisions.map(
            (d) => html`
              <li class=${`decision ${d.outcome}`}>
                <span class="step">${d.step}</span>
                <span class="outcome">${d.outcome}</span>
                <span class="summary">${d.summary}${Array.isArray(d.detail?.failures) ? html`<ul class="failures">${(d.detail!.failures as string[]).map((f) => html`<li>${f}</li>`)}</ul>` : ''}</span>
                <span class="spec">spec: ${d.spec}</span>
              </li>
            `,
          )}
        </ol>
      <//>
      <${Block} title="Replay">
        <pre class="code">${curl}</pre>
        <button type="button" onClick=${() => navigator.clipboard?.writeText(curl).then(() => setCopied(true))}>${copied ? 'Copied' : 'Copy curl'}</button>
      <//>
      <div class="two">
        <${Block} title="Request"><pre class="code">${pretty(trace.request.headers)}</pre><pre class="code">${pretty(trace.request.body)}</pre><//>
        <${Block} title="Answer"><pre class="code">${pretty(trace.response.headers)}</pre><pre class="code">${pretty(trace.response.body)}</pre><//>
      </div>
    </div>
  `
}

function Faults({ live, act }: { live: LiveState | undefined; act: (what: string, run: () => Promise<unknown>) => void }) {
  const [form, setForm] = useState({ route: '*', status: '503', message: '', latency_ms: '', count: '1' })
  const set = (name: keyof typeof form) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value })
  const add = (e: Event) => {
    e.preventDefault()
    const body: Record<string, unknown> = { route: form.route || '*', count: Number(form.count) || 1 }
    if (form.status) body.status = Number(form.status)
    if (form.message) body.message = form.message
    if (form.latency_ms) body.latency_ms = Number(form.latency_ms)
    act('Fault added', () => api('/faults', { method: 'POST', body }))
  }
  const faults = live?.faults ?? []
  return html`
    <form class="fault-form" onSubmit=${add}>
      <label>Route <input name="route" value=${form.route} onInput=${set('route')} placeholder="operationId, permission, path or *" /></label>
      <label>Status <input name="status" inputmode="numeric" value=${form.status} onInput=${set('status')} /></label>
      <label>Message <input name="message" value=${form.message} onInput=${set('message')} placeholder="Injected fault: 503" /></label>
      <label>Latency ms <input name="latency_ms" inputmode="numeric" value=${form.latency_ms} onInput=${set('latency_ms')} /></label>
      <label>Count <input name="count" inputmode="numeric" value=${form.count} onInput=${set('count')} /></label>
      <button type="submit">Add fault</button>
    </form>
    ${faults.length
      ? html`<table>
          <caption>Faults waiting for their next matching requests</caption>
          <thead><tr><th scope="col">id</th><th scope="col">route</th><th scope="col">status</th><th scope="col">latency</th><th scope="col">message</th><th scope="col">remaining</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead>
          <tbody>
            ${faults.map(
              (f) => html`<tr>
                <td>${f.id}</td><td>${f.route}</td><td>${f.status ?? '-'}</td><td>${f.latency_ms ?? '-'}</td><td>${f.message ?? ''}</td><td>${f.remaining}</td>
                <td><button type="button" class="danger" aria-label=${`Remove fault ${f.id}`} onClick=${() => act(`Fault ${f.id} removed`, () => api(`/faults/${f.id}`, { method: 'DELETE' }))}>Remove</button></td>
              </tr>`,
            )}
          </tbody>
        </table>`
      : html`<p class="empty">No fault injected.</p>`}
  `
}

/** Refreshes a view when exchanges arrive, at most every 2 s. */
function usePolled<T>(path: string, version: number): T | undefined {
  const [data, setData] = useState<T | undefined>()
  const last = useRef(0)
  useEffect(() => {
    const now = Date.now()
    if (data !== undefined && now - last.current < 2000) return
    last.current = now
    api<T>(path).then(setData, () => {})
  }, [version, path])
  return data
}

function Limits({ version }: { version: number }) {
  const data = usePolled<{ rateLimit: boolean; rate: any[] | null; idempotency: any[] | null }>('/console/limits', version)
  if (!data) return html`<p class="empty">Loading…</p>`
  return html`
    <div class="two">
      <${Block} title=${`Rate counters per key and shop${data.rateLimit ? '' : ' (rate limit off)'}`}>
        ${data.rate?.length
          ? html`<table><thead><tr><th scope="col">key</th><th scope="col">shop</th><th scope="col">this second</th><th scope="col">window from</th><th scope="col">today</th></tr></thead>
              <tbody>${data.rate.map((r) => html`<tr><td>${r.key}</td><td title=${r.shop}>${shortShop(r.shop)}</td><td>${r.secondCount}/${r.perSecond}</td><td>${timeOf(r.windowStart)}</td><td>${r.dayCount.toLocaleString('en')}/${r.perDay.toLocaleString('en')}</td></tr>`)}</tbody></table>`
          : html`<p class="empty">No counter yet.</p>`}
      <//>
      <${Block} title="Idempotency records per shop and key">
        ${data.idempotency?.length
          ? html`<table><thead><tr><th scope="col">shop</th><th scope="col">key</th><th scope="col">status</th><th scope="col">answer</th><th scope="col">trace</th><th scope="col">expires</th></tr></thead>
              <tbody>${data.idempotency.map((r) => html`<tr><td title=${r.shop}>${shortShop(r.shop)}</td><td>${r.key}</td><td>${r.status}</td><td>${r.responseStatus ?? '-'}</td><td>${r.trace ?? '-'}</td><td>${r.expiresAt ?? '-'}</td></tr>`)}</tbody></table>`
          : html`<p class="empty">No idempotency record.</p>`}
      <//>
    </div>
  `
}

function Areas() {
  const [data, setData] = useState<{ areas: Array<{ area: string; state: unknown }> } | undefined>()
  const load = () => api('/console/areas').then(setData, () => {})
  useEffect(() => void load(), [])
  if (!data) return html`<p class="empty">Loading…</p>`
  return html`
    <button type="button" onClick=${load}>Refresh</button>
    ${data.areas.length ? '' : html`<p class="empty">No area state made yet: an area's state is made on its first request.</p>`}
    ${data.areas.map((a) => html`<details class="area"><summary>${a.area}</summary><pre class="code">${pretty(a.state)}</pre></details>`)}
  `
}

function Connector({ version }: { version: number }) {
  const data = usePolled<{ connections: any[]; activity: any[] }>('/console/connector', version)
  if (!data) return html`<p class="empty">Loading…</p>`
  return html`
    <div class="two">
      <${Block} title="Connections">
        ${data.connections.length
          ? html`<table><thead><tr><th scope="col">connection</th><th scope="col">client</th><th scope="col">shops</th><th scope="col">tools</th><th scope="col">last used</th><th scope="col">revoked</th></tr></thead>
              <tbody>${data.connections.map((c) => html`<tr><td>${c.connection_id}</td><td>${c.client_name}</td><td>${c.shops.length}</td><td>${c.tools.length}</td><td>${c.last_used_at ?? '-'}</td><td>${c.revoked_at ?? '-'}</td></tr>`)}</tbody></table>`
          : html`<p class="empty">No connection: an assistant connects through /oauth/authorize.</p>`}
      <//>
      <${Block} title="Activity (newest first)">
        ${data.activity.length
          ? html`<table><thead><tr><th scope="col">time</th><th scope="col">actor</th><th scope="col">operation</th><th scope="col">status</th></tr></thead>
              <tbody>${data.activity.slice(0, 100).map((a) => html`<tr><td>${a.time}</td><td>${a.actor.kind === 'connector' ? a.actor.client_name : a.actor.key_id}</td><td>${a.tool ?? a.operation_id}</td><td>${a.status}</td></tr>`)}</tbody></table>`
          : html`<p class="empty">No activity.</p>`}
      <//>
    </div>
  `
}

render(html`<${App} />`, document.getElementById('app')!)
