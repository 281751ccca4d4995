/**
 * A reference integration, written as a partner would on plain fetch: a nightly sync job that reads
 * shops, products, the sample queue and the CRM, creates outreach automations, edits a dashboard,
 * waits for the halo report and probes the Enterprise tier. It follows every documented rule; with
 * `breaks: '<rule id>'` it breaks exactly that rule's behaviour (the proof that each rule catches it).
 */
export interface PartnerOptions {
  baseUrl: string
  apiKey: string
  shopId: string
  /** Waits (tests advance the twin's clock instead of sleeping). */
  sleep(ms: number): Promise<void>
  /** Milliseconds on the clock the twin reads (the client's own clock in production). */
  now(): number
  /** The id of the one rule this client breaks. */
  breaks?: string
  /** Automations to create (enough for every write fault of the profile). */
  writes?: number
}

interface Reply {
  status: number
  json: any
  retryAfter: number | null
}

export function createPartnerClient(o: PartnerOptions) {
  const breaks = o.breaks
  // 8 requests per second, under the documented 10 (20 when breaking the pace).
  const gap = breaks === 'ratelimit.pace' ? 50 : 125
  let last = -Infinity
  let blockedUntil = 0
  let keys = 0
  const newKey = () => (breaks === 'idempotency.key-format' ? `sync_job_${++keys}` : `sync-job-${++keys}-${Math.random().toString(16).slice(2, 10)}`)

  async function pace(): Promise<void> {
    const wait = Math.max(last + gap, blockedUntil) - o.now()
    if (wait > 0) await o.sleep(wait)
    last = o.now()
  }

  async function send(method: string, path: string, body: unknown, key: string | undefined): Promise<Reply> {
    const headers: Record<string, string> = { 'x-api-key': o.apiKey, 'x-shop-id': o.shopId }
    // Without the header fetch labels a string body text/plain.
    if (breaks !== 'headers.every-call') headers['content-type'] = 'application/json'
    if (key !== undefined) headers['idempotency-key'] = key
    try {
      const response = await fetch(`${o.baseUrl}${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
      const text = await response.text()
      const retryAfter = response.headers.get('retry-after')
      return { status: response.status, json: text ? JSON.parse(text) : null, retryAfter: retryAfter === null ? null : Number(retryAfter) }
    } catch {
      return { status: 0, json: null, retryAfter: null }
    }
  }

  /** One call: paced, 429 waited out, a write retried with its key after a 5xx, a drop or a 409. */
  async function call(method: string, path: string, body?: unknown, { write = false } = {}): Promise<Reply> {
    let key = write ? newKey() : undefined
    let backoff = 500
    for (let attempt = 0; attempt < 8; attempt++) {
      await pace()
      const reply = await send(method, path, body, key)
      if (reply.status === 429) {
        if (breaks !== 'ratelimit.retry-after') blockedUntil = o.now() + (reply.retryAfter ?? 1) * 1000
        continue
      }
      if (write && (reply.status === 0 || reply.status >= 500)) {
        await o.sleep((backoff *= 2))
        if (breaks === 'idempotency.retry-same-key') key = newKey()
        continue
      }
      if (write && reply.status === 409) {
        if (breaks === 'idempotency.conflict-retry-later') key = newKey()
        else await o.sleep(2000)
        continue
      }
      return reply
    }
    throw new Error(`${method} ${path}: gave up after 8 attempts`)
  }

  return { call }
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** The sync job. Returns what it saw, for the test's own checks. */
export async function runIntegration(o: PartnerOptions): Promise<{ samples: number; automations: number; haloPolls: number }> {
  const { call } = createPartnerClient(o)
  const breaks = o.breaks
  await call('GET', '/account/shops')
  await call('POST', '/shop/products', breaks === 'contract.request-bodies' ? { sort_by: 'popularity' } : { sort_by: 'units_sold' })

  // The review queue, page by page while has_more (the list stops at its 1,000-row cap).
  let samples = 0
  for (let scan = 0; scan < (breaks === 'limits.scoped-reads' ? 2 : 1); scan++) {
    const pageSize = breaks === 'paging.page-size-max' ? 200 : 100
    let total = 0
    for (let page = 1; ; page++) {
      const reply = await call('POST', '/affiliate/samples/list', { page_size: pageSize, page_number: page })
      if (reply.status !== 200) break
      const data = reply.json.data
      if (page === 1) total = data.total_count
      samples += data.results.length
      // Breaking the cap: pages counted from total_count instead of has_more.
      const more = breaks === 'paging.depth-cap' ? page * pageSize < total : data.has_more
      if (!more) break
    }
  }
  // Later syncs read the CRM narrowed by a filter.
  await call('POST', '/affiliate/crm/list', { page_size: 50, page_number: 1, filters: { min_videos: 1 } })

  let automations = 0
  for (let n = 1; n <= (o.writes ?? 8); n++) {
    const filters: Record<string, unknown> = { follower_min: 1000 * n }
    if (breaks === 'outreach.no-legacy-keys') filters.gmv_ranges = ['1k-10k']
    const reply = await call('POST', '/automations/create', { title: `partner-sync-${n}`, message_type: 'dm', outreach_audience: 'new_affiliates', dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]' }], outreach_filters: filters }, { write: true })
    if (reply.status === 201) automations++
  }

  // A dashboard edited with expected_updated_at; a 412 means: read it again and reapply.
  const boards = await call('POST', '/dashboards/list', {})
  const boardId: string = boards.json.data.dashboards[0].id
  for (const grain of ['week', 'month', 'day']) {
    let board = (await call('POST', '/dashboards/get', { dashboard_id: boardId })).json.data
    for (let attempt = 0; attempt < 3; attempt++) {
      const blind = breaks === 'dashboards.reread-after-412' && attempt > 0
      const reply = await call('POST', '/dashboards/update', { dashboard_id: boardId, default_grain: grain, ...(!blind && { expected_updated_at: board.updated_at }) })
      if (reply.status !== 412) break
      if (!blind) board = (await call('POST', '/dashboards/get', { dashboard_id: boardId })).json.data
    }
  }

  // The halo report: polled with backoff while a platform block is refreshing.
  let haloPolls = 0
  let wait = 1000
  for (;;) {
    const today = o.now()
    const reply = await call('POST', '/halo-effect', { date_range: { from: isoDay(today - 29 * 86_400_000), to: isoDay(today) } })
    haloPolls++
    const platforms = Object.values(reply.json?.data?.platforms ?? {}) as Array<{ status?: string }>
    if (reply.status !== 200 || !platforms.some((p) => p.status === 'refreshing') || haloPolls > 30) break
    await o.sleep(breaks === 'halo.poll-backoff' ? 200 : wait)
    wait = Math.min(wait * 2, 16_000)
  }

  // The Enterprise tier: a standard key is refused once, and the client remembers.
  for (let i = 0; i < (breaks === 'auth.enterprise-after-403' ? 3 : 1); i++) {
    const reply = await call('POST', '/enterprise/brands', { region: 'us' })
    if (reply.status === 403 && breaks !== 'auth.enterprise-after-403') break
  }
  return { samples, automations, haloPolls }
}
