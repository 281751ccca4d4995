/**
 * Clients built on popular HTTP libraries, as a partner would write them: the same small sync job
 * (shops, the sample queue paged, four outreach automations with an Idempotency-Key each, a
 * dashboard update with expected_updated_at), on ky, got, p-retry around fetch, and openapi-fetch
 * with a retry middleware, each at its library's defaults and at the settings its documentation
 * gives for retrying POSTs that are idempotent (an Idempotency-Key makes these safe to repeat).
 * The job paces itself (8 requests per second, every attempt, retries included) so the table grades
 * the retry settings, not the pacing. bench/certify-libraries.ts certifies each against the twin.
 */
import createClient, { type Middleware } from 'openapi-fetch'
import got, { type OptionsInit } from 'got'
import ky, { type Options as KyOptions } from 'ky'
import pRetry, { AbortError } from 'p-retry'
import type { paths } from '../openapi/index.ts'

export interface LibraryTarget {
  baseUrl: string
  apiKey: string
  shopId: string
}

/** One step of the job: a request the job makes, answered or thrown (a library error after its retries). */
type Send = (method: 'GET' | 'POST', path: string, body?: unknown, idempotencyKey?: string) => Promise<{ status: number; json: any }>

/** The pace every client keeps: at most one request each 125 ms (8 per second, under the documented 10). */
function pacer(): () => Promise<void> {
  let next = 0
  return async () => {
    const wait = next - Date.now()
    next = Math.max(Date.now(), next) + 125
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
  }
}

/** fetch, paced. */
function pacedFetch(): typeof fetch {
  const pace = pacer()
  return async (input, init) => {
    await pace()
    return fetch(input, init)
  }
}

let keys = 0
const newKey = (library: string) => `${library}-sync-${process.pid}-${++keys}-${Math.floor(Math.random() * 2 ** 32).toString(16)}`

/** The sync job, on any transport. A step a library gave up on is logged and the job goes on. */
async function syncJob(library: string, send: Send): Promise<string[]> {
  const errors: string[] = []
  const step = async (label: string, run: () => Promise<unknown>) => {
    try {
      return await run()
    } catch (error) {
      errors.push(`${label}: ${(error as Error).message}`)
      return undefined
    }
  }
  await step('shops', () => send('GET', '/account/shops'))
  for (let page = 1; page <= 3; page++) {
    const reply = (await step(`samples page ${page}`, () => send('POST', '/affiliate/samples/list', { page_size: 100, page_number: page }))) as { json: any } | undefined
    if (!reply?.json?.data?.has_more) break
  }
  for (let n = 1; n <= 4; n++) {
    // One key per automation, set by the job: every retry the library makes carries it.
    const key = newKey(library)
    await step(`automation ${n}`, () => send('POST', '/automations/create', { title: `${library}-sync-${n}`, message_type: 'dm', outreach_audience: 'new_affiliates', dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]' }] }, key))
  }
  const boards = (await step('boards', () => send('POST', '/dashboards/list', {}))) as { json: any } | undefined
  const boardId: string | undefined = boards?.json?.data?.dashboards?.[0]?.id
  if (boardId) {
    // A 412 means: read the board again and reapply (the job's own logic, not the library's).
    for (let attempt = 0; attempt < 3; attempt++) {
      const board = (await step('board', () => send('POST', '/dashboards/get', { dashboard_id: boardId }))) as { json: any } | undefined
      const updatedAt = board?.json?.data?.updated_at
      if (!updatedAt) break
      const status = await send('POST', '/dashboards/update', { dashboard_id: boardId, default_grain: 'week', expected_updated_at: updatedAt }).then(
        (r) => r.status,
        (error: { response?: { status?: number; statusCode?: number } }) => error.response?.status ?? error.response?.statusCode ?? 0,
      )
      if (status !== 412) break
    }
  }
  return errors
}

const headersOf = (t: LibraryTarget, key?: string): Record<string, string> => ({ 'x-api-key': t.apiKey, 'x-shop-id': t.shopId, ...(key ? { 'idempotency-key': key } : {}) })

// ky: https://github.com/sindresorhus/ky#retry (defaults: limit 2, no POST, statusCodes 408 413 429 500 502 503 504, Retry-After on 413 429 503).
function kyJob(retry: KyOptions['retry']) {
  return (t: LibraryTarget) => {
    const client = ky.create({ prefixUrl: t.baseUrl, fetch: pacedFetch(), ...(retry !== undefined && { retry }) })
    return syncJob('ky', async (method, path, body, key) => {
      const response = await client(path.slice(1), { method, headers: headersOf(t, key), ...(body !== undefined && { json: body }) })
      return { status: response.status, json: await response.json() }
    })
  }
}

// got: https://github.com/sindresorhus/got/blob/main/documentation/7-retry.md ("By default, Got does not retry on POST").
function gotJob(retry: OptionsInit['retry']) {
  return (t: LibraryTarget) => {
    const pace = pacer()
    const client = got.extend({ prefixUrl: t.baseUrl, hooks: { beforeRequest: [() => pace()] }, ...(retry !== undefined && { retry }) })
    return syncJob('got', async (method, path, body, key) => {
      const response = await client(path.slice(1), { method, headers: headersOf(t, key), ...(body !== undefined && { json: body }) })
      return { status: response.statusCode, json: JSON.parse(response.body) }
    })
  }
}

// p-retry: https://github.com/sindresorhus/p-retry#usage (retries 10, factor 2, minTimeout 1000; it retries what `run` throws).
function pRetryJob(throwOn: (status: number) => 'retry' | 'abort' | 'return', options: Parameters<typeof pRetry>[1]) {
  return (t: LibraryTarget) => {
    const paced = pacedFetch()
    return syncJob('p-retry', (method, path, body, key) =>
      pRetry(async () => {
        const response = await paced(`${t.baseUrl}${path}`, { method, headers: { ...headersOf(t, key), 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) })
        const verdict = throwOn(response.status)
        if (verdict === 'abort') throw new AbortError(`HTTP ${response.status}`)
        if (verdict === 'retry') throw new Error(`HTTP ${response.status}`)
        return { status: response.status, json: await response.json() }
      }, options),
    )
  }
}

/** A retry middleware for openapi-fetch (its docs show middleware, not retries): it resends a clone of the request. */
export function retryMiddleware({ retries = 2, methods = ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS'], statuses = [429, 500, 502, 503, 504], delay = (attempt: number) => 300 * 2 ** attempt, retryAfter = false } = {}): Middleware {
  const pending = new WeakMap<Request, Request>()
  return {
    onRequest({ request }) {
      pending.set(request, request.clone())
      return undefined
    },
    async onResponse({ request, response, options }) {
      if (!methods.includes(request.method)) return response
      let answer: Response | undefined = response
      for (let attempt = 0; attempt < retries && (answer === undefined || statuses.includes(answer.status)); attempt++) {
        const header = Number(answer?.headers.get('retry-after'))
        const wait = retryAfter && header > 0 ? Math.max(header * 1000, delay(attempt)) : delay(attempt)
        await new Promise((resolve) => setTimeout(resolve, wait))
        // A retry whose connection drops is retried too (undefined: no answer yet).
        answer = await options.fetch(pending.get(request)!.clone()).catch(() => undefined)
      }
      if (answer === undefined) throw new Error(`${request.method} ${request.url}: no answer after ${retries} retries`)
      return answer
    },
    async onError({ request, options }) {
      // A dropped connection: fetch rejected; the same request again.
      if (!methods.includes(request.method)) return undefined
      for (let attempt = 0; attempt < retries; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, delay(attempt)))
        try {
          const answer = await options.fetch(pending.get(request)!.clone())
          if (!statuses.includes(answer.status)) return answer
        } catch {}
      }
      return undefined
    },
  }
}

function openapiFetchJob(middleware: Middleware) {
  return (t: LibraryTarget) => {
    const client = createClient<paths>({ baseUrl: t.baseUrl, fetch: pacedFetch() })
    client.use(middleware)
    return syncJob('openapi-fetch', async (method, path, body, key) => {
      const init = { headers: headersOf(t, key), ...(body !== undefined && { body }) } as never
      const { response, data, error } = method === 'GET' ? await client.GET(path as never, init) : await client.POST(path as never, init)
      if (!response.ok) throw Object.assign(new Error(`HTTP ${response.status}: ${JSON.stringify(error)}`), { response })
      return { status: response.status, json: data }
    })
  }
}

export interface LibraryClient {
  library: string
  settings: string
  /**
   * The methods on which these settings retry a 429. Every call of this API with a shop is a POST,
   * reads included, so settings that leave POST out never retry the 429 the twin puts on the job's
   * first such call (test/certify-libraries.test.ts holds the table to this).
   */
  retries429On: readonly string[]
  run(target: LibraryTarget): Promise<string[]>
}

const IDEMPOTENT_METHODS = ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE']

const IDEMPOTENT_AND_POST = ['get', 'put', 'head', 'delete', 'options', 'trace', 'post']

/** The table's rows, in order. */
export const LIBRARY_CLIENTS: LibraryClient[] = [
  { library: 'ky', settings: 'defaults', retries429On: IDEMPOTENT_METHODS, run: kyJob(undefined) },
  { library: 'ky', settings: "retry: { limit: 4, methods: [...defaults, 'post'], jitter: true }", retries429On: [...IDEMPOTENT_METHODS, 'POST'], run: kyJob({ limit: 4, methods: IDEMPOTENT_AND_POST, jitter: true }) },
  { library: 'ky', settings: "retry: { limit: 4, methods: [...defaults, 'post'], statusCodes: [...defaults, 409], jitter: true }", retries429On: [...IDEMPOTENT_METHODS, 'POST'], run: kyJob({ limit: 4, methods: IDEMPOTENT_AND_POST, statusCodes: [408, 409, 413, 429, 500, 502, 503, 504], jitter: true }) },
  { library: 'got', settings: 'defaults', retries429On: IDEMPOTENT_METHODS, run: gotJob(undefined) },
  { library: 'got', settings: "retry: { limit: 4, methods: [...defaults, 'POST'] }", retries429On: [...IDEMPOTENT_METHODS, 'POST'], run: gotJob({ limit: 4, methods: ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'POST'] }) },
  { library: 'got', settings: "retry: { limit: 4, methods: [...defaults, 'POST'], statusCodes: [...defaults, 409] }", retries429On: [...IDEMPOTENT_METHODS, 'POST'], run: gotJob({ limit: 4, methods: ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'POST'], statusCodes: [408, 409, 413, 429, 500, 502, 503, 504, 521, 522, 524] }) },
  { library: 'p-retry (around fetch)', settings: 'defaults, as its usage example (throws only on 404)', retries429On: [], run: pRetryJob((s) => (s === 404 ? 'abort' : 'return'), {}) },
  { library: 'p-retry (around fetch)', settings: '{ retries: 4, randomize: true }, throwing on 409, 429 and 5xx (AbortError on other 4xx)', retries429On: ['GET', 'POST'], run: pRetryJob((s) => (s === 409 || s === 429 || s >= 500 ? 'retry' : s >= 400 && s !== 412 ? 'abort' : 'return'), { retries: 4, randomize: true }) },
  { library: 'openapi-fetch + retry middleware', settings: 'middleware defaults: 2 retries, 300 ms doubling, 429 and 5xx on GET, PUT, HEAD, DELETE, OPTIONS (not POST, so not on this API\'s reads either)', retries429On: ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS'], run: openapiFetchJob(retryMiddleware()) },
  { library: 'openapi-fetch + retry middleware', settings: "{ retries: 4, methods: [...defaults, 'POST'], statuses: [409, 429, 5xx], retryAfter: true }", retries429On: ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS', 'POST'], run: openapiFetchJob(retryMiddleware({ retries: 4, methods: ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS', 'POST'], statuses: [409, 429, 500, 502, 503, 504], retryAfter: true })) },
]
