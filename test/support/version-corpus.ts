/**
 * A corpus of requests that covers the twin broadly, for comparing the answers of two twins started
 * with the same seed, `--today` and frozen clock (test/determinism-versions.test.ts: one on Node 22,
 * one on Node 24). It is run against a `shoptwin serve` over HTTP, one request at a time, and records
 * each answer as sent: status line, headers (less the ones EXCLUDED_HEADERS names) and body bytes.
 *
 * What it sends, in order (each step's requests are built from the answers before it, as a client's):
 * - every operation's example request (openapi/examples/requests.ts) on a reset twin, the calls it
 *   makes first included, as openapi/examples/generate.ts records them;
 * - a typical request to every operation and alias (conformance/examples.ts), writes with a fixed
 *   Idempotency-Key and sent twice (the replay), then the lists those writes show in;
 * - every sort key of every list and search in both directions, a full page each (the orders);
 * - names with accents, decomposed accents, German sharp s, dotted I, emoji and scripts whose case
 *   mapping is recent, written and then listed, searched and matched case-insensitively;
 * - POST /shop/stats and a dashboard's data cut by time zones whose rules changed in recent tzdata
 *   releases, over ranges across those changes, plus zone names that are aliases or unknown;
 * - the CSV format of every operation that has one;
 * - the halo report before and after its nightly refresh (the clock moved), and the clock's answers.
 */
import { createHash } from 'node:crypto'
import { Agent, request as httpRequest } from 'node:http'
import { exampleRequests, type ExampleContext, type ExampleRequest } from '../../openapi/examples/requests.ts'
import { serialiseQuery } from '../../openapi/examples/generate.ts'
import { loadContract, type JsonSchema, type OperationInfo } from '../../openapi/index.ts'
import { isWrite, typicalRequest } from '../../conformance/examples.ts'
import { daysAgo } from '../../conformance/support.ts'
import { createMockState } from '../../mock/index.ts'

/** The world and clock both twins are started with (`serve --seed 42 --scale small --today 2026-03-10`, clock frozen at noon UTC). */
export const CORPUS_WORLD = { seed: 42, scale: 'small', today: '2026-03-10', now: '2026-03-10T12:00:00.000Z' } as const

/** `serve`'s flags for CORPUS_WORLD (the clock is frozen by the corpus's first request). */
export const CORPUS_SERVE_FLAGS = ['--seed', String(CORPUS_WORLD.seed), '--scale', CORPUS_WORLD.scale, '--today', CORPUS_WORLD.today, '--rate-limit', 'off']

/**
 * Headers not compared, and why: `date` is the wall clock's (HTTP's Date header, not the mock's clock);
 * `x-shoptwin-trace` ids are unique per process, not part of the determinism promise (README, Traces);
 * `connection` and `keep-alive` describe the transport (the socket's reuse), not the answer.
 */
export const EXCLUDED_HEADERS = ['date', 'x-shoptwin-trace', 'connection', 'keep-alive'] as const

export interface CorpusRequest {
  /** What the request is, for a failure's message (`example createDashboard`, `sort listCrmAffiliates sort_by=handle desc`). */
  name: string
  method: string
  /** Path and query. */
  path: string
  headers?: Record<string, string>
  body?: string
}

export interface CorpusAnswer {
  name: string
  request: string
  /** `HTTP/1.1 200 OK`. */
  status: string
  /** Compared headers, as sent (name: value lines, in order). */
  headers: string[]
  body: Buffer
  /** sha256 of the status line, headers and body. */
  digest: string
}

const API_KEY = 'demo-enterprise-key'

/** One request sent as is: the status line, headers in their order and the body's bytes. */
function send(base: URL, agent: Agent, req: CorpusRequest): Promise<Omit<CorpusAnswer, 'digest'>> {
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.from(req.body)
    const headers: Record<string, string> = { ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}), ...req.headers }
    const outgoing = httpRequest({ host: base.hostname, port: base.port, method: req.method, path: req.path, headers, agent }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => {
        const lines: string[] = []
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!.toLowerCase()
          if (!(EXCLUDED_HEADERS as readonly string[]).includes(name)) lines.push(`${name}: ${res.rawHeaders[i + 1]}`)
        }
        resolve({ name: req.name, request: `${req.method} ${req.path}${req.body ? ` ${req.body.slice(0, 300)}` : ''}`, status: `HTTP/${res.httpVersion} ${res.statusCode} ${res.statusMessage}`, headers: lines, body: Buffer.concat(chunks) })
      })
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

export const digestOf = (a: Pick<CorpusAnswer, 'status' | 'headers' | 'body'>): string => createHash('sha256').update(`${a.status}\n${a.headers.join('\n')}\n\n`).update(a.body).digest('hex')

/** Days before a date, as YYYY-MM-DD. */
const daysBefore = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)

/** The request schema's object at a property path, $refs and anyOf/allOf branches followed. */
function resolve(doc: { components: { schemas: Record<string, JsonSchema> } }, schema: JsonSchema | undefined): JsonSchema[] {
  if (!schema) return []
  const ref = schema.$ref as string | undefined
  if (ref) return resolve(doc, doc.components.schemas[ref.split('/').pop()!])
  const branches = [...((schema.anyOf as JsonSchema[]) ?? []), ...((schema.oneOf as JsonSchema[]) ?? []), ...((schema.allOf as JsonSchema[]) ?? [])]
  return [schema, ...branches.flatMap((b) => resolve(doc, b))]
}

/** Every sort key of a request schema: where it sits (property path), its values, and the direction field beside it with its values. */
export function sortFields(contract: ReturnType<typeof loadContract>, op: OperationInfo): Array<{ at: string[]; keys: string[]; direction?: { name: string; values: string[] } }> {
  const found: Array<{ at: string[]; keys: string[]; direction?: { name: string; values: string[] } }> = []
  const enumOf = (schema: JsonSchema | undefined): string[] => [...new Set(resolve(contract.doc, schema).flatMap((s) => ((s.enum as unknown[]) ?? []).filter((v): v is string => typeof v === 'string')))]
  const walk = (schemas: JsonSchema[], at: string[], depth: number) => {
    const properties: Record<string, JsonSchema> = Object.assign({}, ...schemas.map((s) => (s.properties as Record<string, JsonSchema>) ?? {}))
    const key = Object.keys(properties).find((name) => name === 'sort_by')
    if (key) {
      const directionName = ['sort_direction', 'sortDirection', 'sortDir'].find((name) => name in properties)
      found.push({ at: [...at, key], keys: enumOf(properties[key]), ...(directionName ? { direction: { name: directionName, values: enumOf(properties[directionName]) } } : {}) })
    }
    if (depth < 2) for (const [name, value] of Object.entries(properties)) if (name === 'filters' || name === 'search_params') walk(resolve(contract.doc, value), [...at, name], depth + 1)
  }
  if (op.method === 'GET') {
    const query: JsonSchema = { properties: Object.fromEntries(op.query.map((q) => [q.name, (q as unknown as { schema?: JsonSchema }).schema ?? {}])) }
    walk([query], [], 0)
  } else walk(resolve(contract.doc, op.requestSchema), [], 0)
  return found
}

/** The sort keys a list takes that its schema does not enumerate (the ads and social lists fall back on an unknown key; the enterprise lists too). */
const UNLISTED_SORT_KEYS: Record<string, string[]> = {
  listAdCampaigns: ['ad_spend', 'gross_revenue', 'roi', 'orders', 'cost_per_order', 'campaign_name', 'created_at', 'no_such_key'],
  listAdCreatives: ['ad_spend', 'gross_revenue', 'roi', 'orders', 'impressions', 'clicks', 'ctr', 'video_id', 'no_such_key'],
  listSocialCampaigns: ['spend', 'impressions', 'clicks', 'purchases', 'purchase_value', 'roas', 'name', 'status', 'created_at', 'no_such_key'],
  listSocialAdsets: ['spend', 'roas', 'name', 'status', 'no_such_key'],
  listSocialAds: ['spend', 'purchase_value', 'roas', 'name', 'handle', 'no_such_key'],
  listCreatorPrograms: ['created_at', 'name', 'status', 'no_such_key'],
  listProgramCreators: ['created_at', 'handle', 'status', 'no_such_key'],
  listEnterpriseBrands: ['gmv', 'units_sold', 'growth_pct', 'name'],
  listEnterpriseCreators: ['gmv', 'followers', 'name', 'handle'],
  listEnterpriseProducts: ['gmv', 'units_sold', 'price', 'name'],
}

/** Text that sorts, folds and matches differently by locale, Unicode version or normalisation form. */
export const AWKWARD_NAMES = [
  'Zoë Café',
  'Zoe\u0308 Cafe\u0301', // the same, decomposed (NFD)
  'zoe cafe',
  'ÉCLAIR',
  'éclair',
  'Straße',
  'STRASSE',
  'İstanbul',
  'ıstanbul',
  'Ǆemal',
  'ﬁne print', // a ligature: NFKC would make it "fine"
  'Ångström',
  'Ångström', // with U+212B ANGSTROM SIGN
  '𝒮cript',
  '🦄 unicorn',
  'Ꞁ Ꟑ Ᶎ', // Latin letters added to Unicode late (case mappings of recent versions)
  '\u{10D50}\u{10D51} garay', // Garay capitals (Unicode 16): lowercase only where ICU knows them
  '\u{16EA0}\u{16EA1} beria', // Beria Erfe capitals (Unicode 17)
  'Ａｂｃ fullwidth',
  'a\u00a0b nbsp',
]

/** Zones whose rules or names changed in recent tzdata releases, aliases, and names that are no zone. */
export const AWKWARD_ZONES = [
  'America/Asuncion', // 2024b→2025a: Paraguay stays on -03 all year from October 2024
  'America/Coyhaique', // 2025b: a new zone (Aysén, Chile: -03 all year from March 2025)
  'America/Ciudad_Juarez', // 2022g: a new zone
  'America/Mexico_City', // 2022f: no more DST
  'America/Scoresbysund', // 2024a: -02 from March 2024
  'America/Nuuk', // 2023a/c: -02 with DST from 2024
  'Asia/Almaty', // 2024a: +05 from March 2024
  'Asia/Qostanay',
  'Asia/Tehran', // 2022b: no more DST
  'Africa/Cairo', // 2023c: DST again
  'Pacific/Fiji', // 2022f/2023a: no DST
  'Europe/Kyiv', // 2022b: the new name
  'Europe/Kiev', // its old name, an alias
  'Antarctica/Vostok', // 2023d: +05 from December 2023
  'Antarctica/Casey',
  'Australia/Lord_Howe', // a 30-minute DST shift
  'Pacific/Chatham', // +12:45
  'Asia/Kathmandu', // +05:45
  'Asia/Calcutta', // an alias of Asia/Kolkata
  'US/Pacific', // a backward-compatible link
  'EST5EDT', // a legacy POSIX-style zone, a link since 2024b
  'Etc/GMT+5', // sign inverted by convention
  'UTC',
  'utc', // case
  'GMT',
  'Europe/London',
  'Mars/Olympus_Mons', // no such zone
  '+05:30', // an offset, not an IANA name
  '',
]

/** The ranges the zones are cut over: across 2024's, 2025's and 2026's changes (within the world's axis). */
const ZONE_RANGES = (today: string) => [
  { from: '2025-03-01', to: '2025-04-15' },
  { from: '2025-09-20', to: '2025-11-10' },
  { from: daysBefore(today, 20), to: today },
]

export interface CorpusOptions {
  /** Called with each answer as it comes (a test may stop at the first that differs). */
  onAnswer?: (answer: CorpusAnswer, index: number) => void
}

/**
 * Runs the corpus against a twin at `baseUrl` (`serve` with CORPUS_SERVE_FLAGS) and returns every
 * answer in order. Two twins that keep the determinism promise give the same list.
 */
export async function runCorpus(baseUrl: string, options: CorpusOptions = {}): Promise<CorpusAnswer[]> {
  const base = new URL(baseUrl)
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const contract = loadContract()
  // The world the requests pick their ids from: built in this process with the twins' options.
  const state = createMockState({ ...CORPUS_WORLD, rateLimit: false })
  const shop = state.world.shops[0]!
  const data = state.world.shopData[shop.shop_id]!
  const answers: CorpusAnswer[] = []
  const today = CORPUS_WORLD.today

  const raw = async (req: CorpusRequest): Promise<CorpusAnswer> => {
    const answer = await send(base, agent, req)
    const full = { ...answer, digest: digestOf(answer) }
    options.onAnswer?.(full, answers.length)
    answers.push(full)
    return full
  }
  const admin = (name: string, path: string, body: unknown) => raw({ name, method: 'POST', path: `/__admin/${path}`, body: JSON.stringify(body) })
  const freeze = (now: string = CORPUS_WORLD.now) => admin(`clock ${now}`, 'clock', { now })
  const reset = async () => {
    await admin('reset', 'reset', {})
    await freeze()
  }
  const apiHeaders = (op: OperationInfo, extra: Record<string, string> = {}): Record<string, string> => ({ 'x-api-key': API_KEY, ...(op.auth === 'key+shop' ? { 'x-shop-id': shop.shop_id } : {}), ...extra })
  const callOp = async (name: string, op: OperationInfo, request: Omit<ExampleRequest, 'summary'>): Promise<CorpusAnswer> => {
    let path = op.path
    for (const [param, value] of Object.entries(request.path ?? {})) path = path.replace(`{${param}}`, encodeURIComponent(value))
    const query = request.query ? serialiseQuery(op, request.query) : ''
    return raw({ name, method: op.method, path: `${path}${query ? `?${query}` : ''}`, headers: apiHeaders(op, request.headers), ...(op.method === 'GET' ? {} : { body: JSON.stringify(request.body ?? {}) }) })
  }
  const json = (answer: CorpusAnswer): any => {
    try {
      return JSON.parse(answer.body.toString('utf8'))
    } catch {
      return undefined
    }
  }
  const byId = (id: string) => contract.byId.get(id)!

  try {
    await reset()

    // 1. Every operation's example, on a reset twin each, with the calls it makes first.
    for (const op of contract.operations) {
      const build = exampleRequests[op.operationId] ?? exampleRequests[op.operationId.replace(/V1$/, '')] ?? (op.aliasOf ? exampleRequests[op.aliasOf] : undefined)
      if (!build) continue
      await reset()
      const ctx: ExampleContext = {
        world: state.world,
        shop,
        data,
        today,
        call: async (operationId, request) => {
          const answer = await callOp(`example ${op.operationId}: first ${operationId}`, byId(operationId), request)
          return { status: Number(answer.status.split(' ')[1]), json: json(answer) }
        },
      }
      const { summary: _summary, ...request } = await build(ctx)
      if (op.method === 'GET' && request.body) {
        request.query = request.body
        delete request.body
      }
      await callOp(`example ${op.operationId}`, op, request)
    }

    // 2. A typical request to every operation and alias, on one twin: writes keyed and sent twice.
    await reset()
    const wallRange = JSON.stringify([daysAgo(30), daysAgo(1)]).slice(1, -1).split(',')
    const fixedRange = [JSON.stringify(daysBefore(today, 30)), JSON.stringify(daysBefore(today, 1))]
    for (const op of contract.operations) {
      const typical = typicalRequest(contract, op, { shop_id: shop.shop_id })
      // conformance/examples.ts reads ranges off the wall clock: the world's own instead, so the corpus is the same every day.
      const fixed = JSON.parse(JSON.stringify(typical).split(wallRange[0]!).join(fixedRange[0]!).split(wallRange[1]!).join(fixedRange[1]!)) as typeof typical
      const path = op.path.replace(/\{[^}]+\}/g, `corpus-${op.operationId}`)
      const headers = apiHeaders(op, op.idempotent ? { 'idempotency-key': `corpus-${op.operationId}` } : {})
      const req: CorpusRequest = { name: `typical ${op.operationId}`, method: op.method, path: `${path}${serialiseQueryOf(op, fixed.query)}`, headers, ...(op.method === 'GET' ? {} : { body: JSON.stringify(fixed.body ?? {}) }) }
      await raw(req)
      if (isWrite(op) && op.idempotent) await raw({ ...req, name: `${req.name} (replay)` })
    }

    // 3. Every sort key of every list and search, both directions, a full page.
    await reset()
    for (const op of contract.operations) {
      const build = exampleRequests[op.operationId] ?? (op.aliasOf ? exampleRequests[op.aliasOf] : undefined)
      const fields = sortFields(contract, op)
      if (!build || !fields.length) continue
      const base = await build({ world: state.world, shop, data, today, call: async () => ({ status: 0, json: {} }) })
      const template = (op.method === 'GET' ? (base.query ?? base.body) : base.body) ?? {}
      for (const field of fields) {
        const keys = field.keys.length ? field.keys : (UNLISTED_SORT_KEYS[op.aliasOf ?? op.operationId.replace(/V1$/, '')] ?? [])
        const directions = field.direction?.values.length ? field.direction.values : ['asc', 'desc']
        for (const key of keys) {
          for (const direction of directions) {
            const body = structuredClone(template) as Record<string, any>
            let at = body
            for (const name of field.at.slice(0, -1)) at = at[name] ??= {}
            at[field.at.at(-1)!] = key
            if (field.direction) at[field.direction.name] = direction
            const size = op.paging?.max ? Math.min(op.paging.max, 100) : undefined
            if (size && op.paging) body[op.paging.sizeParam] = size
            await callOp(`sort ${op.operationId} ${field.at.join('.')}=${key} ${direction}`, op, op.method === 'GET' ? { query: body } : { body })
          }
        }
      }
    }

    // 4. Names that sort, fold and match differently: written, then listed, searched and matched.
    await reset()
    for (const [i, name] of AWKWARD_NAMES.entries()) {
      await callOp(`names: group ${JSON.stringify(name)}`, byId('createGroup'), { body: { name }, headers: { 'Idempotency-Key': `names-group-${i}` } })
      await callOp(`names: list ${JSON.stringify(name)}`, byId('createList'), { body: { title: name, handles: [data.affiliates[i % data.affiliates.length]!.handle] } })
      await callOp(`names: dashboard ${JSON.stringify(name)}`, byId('createDashboard'), { body: { name } })
      await callOp(`names: tag ${JSON.stringify(name)}`, byId('addTag'), { body: { handles: [data.affiliates[i % data.affiliates.length]!.handle], tag: name } })
    }
    await callOp('names: groups', byId('listGroups'), { body: {} })
    await callOp('names: dashboards', byId('listDashboards'), { body: { include_archived: true } })
    await callOp('names: tags', byId('listTags'), { body: {} })
    for (const name of AWKWARD_NAMES) {
      const word = name.split(' ')[0]!
      await callOp(`names: tags search ${JSON.stringify(word)}`, byId('listTags'), { body: { search: word } })
      await callOp(`names: crm handle ${JSON.stringify(word)}`, byId('listCrmAffiliates'), { body: { page_size: 5, filters: { handle: word } } })
      await callOp(`names: brands search ${JSON.stringify(word)}`, byId('listEnterpriseBrands'), { body: { region: 'us', search: word, page_size: 5 } })
      await callOp(`names: program creators ${JSON.stringify(word)}`, byId('listProgramCreators'), { body: { program_id: data.programs[0]!.program_id, handle: word, page_size: 5 } })
      await callOp(`names: sender ${JSON.stringify(word)}`, byId('createCustomEmailSender'), { body: { email: `sender-${[...word].map((c) => c.codePointAt(0)!.toString(16)).join('-')}@example.com`, name: word } })
      await callOp(`names: dm ${JSON.stringify(word)}`, byId('sendCreatorDm'), { body: { handle: word.toUpperCase(), message: `Hi ${word}` } })
    }
    for (const handle of data.affiliates.slice(0, 3).map((a) => a.handle)) {
      await callOp(`names: crm handle ${handle} upper`, byId('listCrmAffiliates'), { body: { page_size: 5, filters: { handle: handle.toUpperCase() } } })
      await callOp(`names: dm @${handle} upper`, byId('sendCreatorDm'), { body: { handle: `@${handle.toUpperCase()}`, message: 'Hi' } })
    }

    // 5. Stats and a dashboard's data cut by time zones whose rules changed lately.
    await reset()
    const board = json(await callOp('zones: board', byId('createDashboard'), { body: { name: 'zones', widgets: [{ type: 'stat', stat_key: 'affiliate_gmv' }, { type: 'stat-chart', stat_keys: ['video_views', 'dms_sent'] }] } }))?.data?.id as string | undefined
    for (const timezone of AWKWARD_ZONES) {
      for (const range of ZONE_RANGES(today)) {
        await callOp(`zones: stats ${timezone} ${range.from}..${range.to}`, byId('getShopStats'), { body: { date_range: range, timezone, include_charts: true, grain: 'day', stats: ['affiliate_gmv', 'video_views', 'dms_sent', 'sample_requests', 'daily_active_affiliates', 'platform_orders', 'gpm'] } })
      }
      if (board) await callOp(`zones: board data ${timezone}`, byId('getDashboardData'), { body: { dashboard_id: board, timezone, grain: 'day', date_range: ZONE_RANGES(today)[1] } })
    }

    // 6. CSV: every operation that has the format, as its example with format csv.
    await reset()
    for (const op of contract.operations.filter((o) => o.csv)) {
      const build = exampleRequests[op.operationId] ?? exampleRequests[op.operationId.replace(/V1$/, '')] ?? (op.aliasOf ? exampleRequests[op.aliasOf] : undefined)
      if (!build) continue
      const base = await build({ world: state.world, shop, data, today, call: async () => ({ status: 0, json: {} }) })
      const params = { ...((op.method === 'GET' ? (base.query ?? base.body) : base.body) ?? {}), format: 'csv' }
      await callOp(`csv ${op.operationId}`, op, op.method === 'GET' ? { query: params } : { body: params })
      const { format: _format, ...json } = params
      await callOp(`csv ${op.operationId} accept`, op, { ...(op.method === 'GET' ? { query: json } : { body: json }), headers: { accept: 'text/csv' } })
    }

    // 7. The halo report across its nightly refresh, and the clock itself.
    await reset()
    const halo = byId('getHaloReport')
    const haloBody = { date_range: { from: daysBefore(today, 61), to: today }, granularity: 'day' }
    for (const [label, now] of [['noon', CORPUS_WORLD.now], ['before the refresh', `${today}T23:59:59.000Z`], ['after the refresh', `${daysBefore(today, -1)}T03:00:00.000Z`], ['two days on', `${daysBefore(today, -2)}T12:00:00.000Z`]] as const) {
      await freeze(now)
      await callOp(`halo ${label}`, halo, { body: haloBody })
      await callOp(`halo ${label} week`, halo, { body: { ...haloBody, granularity: 'week' } })
      await callOp(`halo links ${label}`, byId('listHaloProductLinks'), {})
      await raw({ name: `clock ${label}`, method: 'GET', path: '/__admin/clock' })
    }
    await admin('clock advance', 'clock', { advance_ms: 90 * 60_000 })
    await callOp('halo advanced', halo, { body: haloBody })
  } finally {
    agent.destroy()
  }
  return answers
}

/** A GET form's query (its JSON-text and deepObject parameters by the contract), `?`-prefixed. */
function serialiseQueryOf(op: OperationInfo, query: Record<string, unknown> | undefined): string {
  const text = query ? serialiseQuery(op, query) : ''
  return text ? `?${text}` : ''
}
