/**
 * Reference integrations, written as partners would on plain fetch. The sync job reads shops,
 * products, the sample queue and the CRM, creates outreach automations, edits a dashboard, waits for
 * the halo report and probes the Enterprise tier; the reads-only job and the paging job do less.
 * Each follows every documented rule with its own retry policy (REFERENCE_CLIENTS: the well-behaved
 * clients that must be certified for what they do on every seed and profile). With
 * `breaks: '<rule id>'` the sync job breaks exactly that rule's behaviour (the proof that each rule
 * catches it).
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
  /** How the client waits before retrying (default: the partner's, 1 s doubling, 2 s after a 409). */
  policy?: RetryPolicy
  /** A seeded random in [0, 1) for jitter (default Math.random). */
  random?: () => number
}

export interface Reply {
  status: number
  json: any
  retryAfter: number | null
}

/** How long a client waits before its next attempt. `attempt` counts from 0. */
export interface RetryPolicy {
  /** Settings in words, for reports. */
  describe: string
  /** After a 5xx or a dropped connection on a write (retried with the same Idempotency-Key). */
  afterFailure(attempt: number, random: () => number): number
  /** After a 409 (the same key in flight). */
  afterConflict(attempt: number, random: () => number): number
  /** After a 429, given its Retry-After in seconds (null without one). */
  afterRateLimit(attempt: number, retryAfter: number | null, random: () => number): number
}

const retryAfterMs = (retryAfter: number | null) => (retryAfter ?? 1) * 1000

/** The partner client of the issue: 1 s doubling on a failure, 2 s after a 409, Retry-After on a 429. */
export const PARTNER_POLICY: RetryPolicy = {
  describe: '1 s doubling after a 5xx or a drop, 2 s after a 409, Retry-After after a 429',
  afterFailure: (attempt) => 1000 * 2 ** attempt,
  afterConflict: () => 2000,
  afterRateLimit: (_attempt, retryAfter) => retryAfterMs(retryAfter),
}

/** Well-behaved retry policies a partner may choose; every one must be certified. */
export const POLICIES = {
  /** Exponential backoff with full jitter from 100 ms; a 429 waits at least its Retry-After. */
  'exponential-jitter': {
    describe: 'exponential backoff with jitter from 100 ms (100 × 2^n × [0.5, 1)), at least Retry-After after a 429',
    afterFailure: (attempt, random) => Math.round(100 * 2 ** attempt * (0.5 + random() / 2)),
    afterConflict: (attempt, random) => Math.round(100 * 2 ** attempt * (0.5 + random() / 2)),
    afterRateLimit: (attempt, retryAfter, random) => Math.max(retryAfterMs(retryAfter), Math.round(100 * 2 ** attempt * (0.5 + random() / 2))),
  },
  /** A fixed 300 ms between attempts (the partner backs off 300 ms on 409 and 5xx); Retry-After after a 429. */
  'fixed-300ms': {
    describe: 'a fixed 300 ms after a 5xx, a drop or a 409, Retry-After after a 429',
    afterFailure: () => 300,
    afterConflict: () => 300,
    afterRateLimit: (_attempt, retryAfter) => Math.max(300, retryAfterMs(retryAfter)),
  },
  /** Retry-After to the millisecond, and 1 s where the answer carries none. */
  'retry-after-exact': {
    describe: 'exactly Retry-After after a 429, 1 s after a 5xx, a drop or a 409',
    afterFailure: () => 1000,
    afterConflict: () => 1000,
    afterRateLimit: (_attempt, retryAfter) => retryAfterMs(retryAfter),
  },
} satisfies Record<string, RetryPolicy>

export function createPartnerClient(o: PartnerOptions) {
  const breaks = o.breaks
  const policy = o.policy ?? PARTNER_POLICY
  const random = o.random ?? Math.random
  // 8 requests per second, under the documented 10 (20 when breaking the pace).
  const gap = breaks === 'ratelimit.pace' ? 50 : 125
  let last = -Infinity
  let blockedUntil = 0
  let keys = 0
  const newKey = () => (breaks === 'idempotency.key-format' ? `sync_job_${++keys}` : `sync-job-${++keys}-${Math.floor(random() * 2 ** 32).toString(16)}`)

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

  /** One call: paced, a 429 waited out and retried, a write retried with its key after a 5xx, a drop or a 409. */
  async function call(method: string, path: string, body?: unknown, { write = false } = {}): Promise<Reply> {
    let key = write ? newKey() : undefined
    let failures = 0
    let conflicts = 0
    let limits = 0
    for (let attempt = 0; attempt < 8; attempt++) {
      await pace()
      const reply = await send(method, path, body, key)
      if (reply.status === 429) {
        // Giving up on a 429 (yet waiting before the next request) breaks the retry, not the wait.
        if (breaks !== 'ratelimit.retry-after') blockedUntil = o.now() + policy.afterRateLimit(limits++, reply.retryAfter, random)
        if (breaks === 'ratelimit.retry-429') return reply
        continue
      }
      if (write && (reply.status === 0 || reply.status >= 500)) {
        await o.sleep(policy.afterFailure(failures++, random))
        if (breaks === 'idempotency.retry-same-key') key = newKey()
        continue
      }
      if (write && reply.status === 409) {
        if (breaks === 'idempotency.conflict-retry-same-key') key = newKey()
        // The partner: the same key, 300 ms later (under the inferred 1 s).
        await o.sleep(breaks === 'idempotency.conflict-retry-later' ? 300 : policy.afterConflict(conflicts++, random))
        continue
      }
      return reply
    }
    throw new Error(`${method} ${path}: gave up after 8 attempts`)
  }

  return { call }
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** Pages the sample review queue while has_more (the list stops at its 1,000-row cap); the rows read. */
async function readSampleQueue(call: ReturnType<typeof createPartnerClient>['call'], breaks?: string): Promise<number> {
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
  return samples
}

/** The sync job. Returns what it saw, for the test's own checks. */
export async function runIntegration(o: PartnerOptions): Promise<{ samples: number; automations: number; haloPolls: number }> {
  const { call } = createPartnerClient(o)
  const breaks = o.breaks
  await call('GET', '/account/shops')
  await call('POST', '/shop/products', breaks === 'contract.request-bodies' ? { sort_by: 'popularity' } : { sort_by: 'units_sold' })

  const samples = await readSampleQueue(call, breaks)
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
      // Breaking the re-read: the stale expected_updated_at again; breaking the precondition: re-read, then a blind update.
      const blind = breaks === 'dashboards.precondition-after-412' && attempt > 0
      const reply = await call('POST', '/dashboards/update', { dashboard_id: boardId, default_grain: grain, ...(!blind && { expected_updated_at: board.updated_at }) })
      if (reply.status !== 412) break
      if (breaks !== 'dashboards.reread-after-412') board = (await call('POST', '/dashboards/get', { dashboard_id: boardId })).json.data
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

  // Ignore the oldest request of the queue (a body the spec does not show: the contract inferred it).
  const queue = await call('POST', '/affiliate/samples/list', { page_size: 1, page_number: 1, filters: { handle: 'a' } })
  const applyId: string | undefined = queue.json?.data?.results?.[0]?.apply_id
  if (applyId) await call('POST', '/affiliate/samples/ignore', breaks === 'contract.inferred-request-bodies' ? { apply_ids: applyId } : { apply_ids: [applyId] }, { write: true })
  return { samples, automations, haloPolls }
}

/** A dashboard-and-stats reader: reads only, no listing paged past its first page. */
export async function runReadsOnly(o: PartnerOptions): Promise<void> {
  const { call } = createPartnerClient(o)
  await call('GET', '/account/shops')
  await call('GET', '/shop/sps')
  await call('POST', '/shop/products', { sort_by: 'units_sold' })
  const today = o.now()
  await call('POST', '/shop/stats', { date_range: { from: isoDay(today - 29 * 86_400_000), to: isoDay(today - 2 * 86_400_000) }, stats: ['total_gmv', 'affiliate_gmv'], include_charts: false })
  await call('POST', '/affiliate/crm/list', { page_size: 20, page_number: 1, filters: { min_videos: 1 } })
  const boards = await call('POST', '/dashboards/list', {})
  const boardId: string | undefined = boards.json?.data?.dashboards?.[0]?.id
  if (boardId) await call('POST', '/dashboards/get', { dashboard_id: boardId })
}

/** A one-off export that pages the sample queue and the CRM to the end (has_more false). */
export async function runPagesToEnd(o: PartnerOptions): Promise<number> {
  const { call } = createPartnerClient(o)
  let rows = await readSampleQueue(call)
  for (let page = 1; ; page++) {
    const reply = await call('POST', '/affiliate/crm/list', { page_size: 100, page_number: page, filters: { min_videos: 1 } })
    if (reply.status !== 200) break
    rows += reply.json.results.length
    if (!reply.json.has_more) break
  }
  return rows
}

/** The well-behaved reference clients: each must be CERTIFIED for what it does, on every seed and profile. */
export const REFERENCE_CLIENTS: Record<string, (o: PartnerOptions) => Promise<unknown>> = {
  'sync job, exponential backoff with jitter from 100 ms': (o) => runIntegration({ ...o, policy: POLICIES['exponential-jitter'] }),
  'sync job, fixed 300 ms': (o) => runIntegration({ ...o, policy: POLICIES['fixed-300ms'] }),
  'sync job, Retry-After honoured exactly': (o) => runIntegration({ ...o, policy: POLICIES['retry-after-exact'] }),
  'reads only': (o) => runReadsOnly({ ...o, policy: POLICIES['retry-after-exact'] }),
  'pages to the end': (o) => runPagesToEnd({ ...o, policy: POLICIES['exponential-jitter'] }),
}
