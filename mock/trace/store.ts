/**
 * The traces of the last answers, in a ring buffer (bounded memory however long the twin runs), and
 * the record one request fills as it goes through the pipeline. A record keeps only references to
 * what the request already holds (its headers, body text, the answer's bytes); redaction, the query
 * and the JSON views are worked out when a trace is read, as the journal does (mock/pipeline/journal.ts).
 */
import type { RequestHeaders } from '../pipeline/compose.ts'
import type { RequestContext, WriteRecord } from '../context.ts'
import type { OperationInfo } from '../../openapi/index.ts'
import type { ConnectorActor } from '../connector/activity.ts'
import { keyIdOf } from '../connector/activity.ts'
import { hashString } from '../../fixtures/random.ts'
import { serializeBody, type ApiResult } from '../respond.ts'
import { REDACTED, redactHeaders } from '../stores/journal.ts'

const SECRET_HEADERS = /^(x-api-key|authorization|proxy-authorization|cookie|set-cookie)$/i
import { TRACE_HEADER, type Trace, type TraceDecision, type TraceSummary } from './types.ts'

export interface TraceStoreOptions {
  /** Record traces (default true; `shoptwin serve --trace off`). */
  enabled?: boolean
  /** Most traces kept, the oldest dropped first (default 1000). */
  size?: number
}

export interface TraceFilter {
  shop?: string
  key?: string
  status?: number | string
  operation?: string
  /** Only traces newer than this id. */
  after?: string
  /** The newest `limit` traces matching (default all kept). */
  limit?: number
}

/**
 * Where finished traces also go when the twin is shared between replicas (mock/twin/redis/traces.ts):
 * it numbers them (ids unique across the replicas) and stores them where every replica reads them.
 */
export interface TraceSink {
  nextId(): number
  push(record: TraceRecord): void
}

/**
 * Where the control API and the console read traces: this replica's store, or a shared one (every
 * replica's traces; mock/twin/redis/traces.ts), whose reads are asynchronous.
 */
export interface TraceReader {
  get(id: string): Trace | undefined | Promise<Trace | undefined>
  list(filter?: TraceFilter): TraceSummary[] | Promise<TraceSummary[]>
  /**
   * A console's feed: `backlog` with the traces kept (again after a reset), then `row` with each new
   * one; returns the unsubscribe. (This replica's store: TraceStore.subscribe.)
   */
  open?(backlog: (rows: TraceSummary[]) => void, row: (summary: TraceSummary) => void): () => void
}

/** Does a trace's summary pass a filter (shop, key, status or its class `4xx`, operation)? `after` and `limit` are the caller's. */
export function traceMatches(s: TraceSummary, { shop, key, status, operation }: TraceFilter): boolean {
  if (shop && s.shop !== shop) return false
  if (key && s.key !== key) return false
  if (status !== undefined && status !== '' && !String(s.status).startsWith(String(status).replace(/x+$/i, ''))) return false
  if (operation && s.operationId !== operation) return false
  return true
}

export interface TraceStore {
  /** Off: no trace is made, no header is added. */
  enabled: boolean
  /** A shared store's sink (undefined in memory: ids are this process's, traces stay in the ring). */
  sink: TraceSink | undefined
  readonly size: number
  readonly capacity: number
  /** A record for a request entering the pipeline (undefined when tracing is off). */
  /** `bodyText`: the request body as the journal keeps it (a repeated body shared with the last one). */
  begin(ctx: RequestContext, bodyText?: string): TraceRecord | undefined
  /** A request no operation matched (the standalone server's 404): its trace, and the answer with its header. */
  unmatched(request: { method: string; url: URL; headers: RequestHeaders; bodyText: string; now: Date }, reason: TraceDecision, result: ApiResult): ApiResult
  get(id: string): Trace | undefined
  /** The newest trace. */
  last(): Trace | undefined
  list(filter?: TraceFilter): TraceSummary[]
  /** The trace of an answer (a fetch Response, its headers, or the header's value). */
  explain(response: Response | { headers: Headers | Record<string, string> } | string): Trace | undefined
  /** Calls `listener` with each finished trace's summary, and `onClear` when the traces are emptied (reset); returns the unsubscribe. */
  subscribe(listener: (summary: TraceSummary) => void, onClear?: () => void): () => void
  /** Attributes a named write of an area state to the request whose handler is running. */
  noteWrite(write: WriteRecord): void
  clear(): void
}

// Ids are unique within the process, so `explain(response)` finds the trace whichever mock answered
// (tests build many mocks in one process). They are not part of the determinism promise: bodies are.
let lastId = 0
const stores = new Set<WeakRef<TraceStore>>()
const forget = typeof FinalizationRegistry === 'undefined' ? undefined : new FinalizationRegistry<WeakRef<TraceStore>>((ref) => stores.delete(ref))

// Bodies are kept whole up to this size; beyond it the trace holds their start only, copied at once
// (the journal's bound): a ring of 1,000 traces of 5 MB bodies would hold 5 GB.
const MAX_BODY = 64 * 1024
const utf8 = new TextDecoder()
const encoder = new TextEncoder()

/** What a trace keeps of a body: itself, or a summary holding a copy of its start (a slice would keep the whole string alive). */
function kept(text: string): string | { truncated: true; length: number; start: string } {
  return text.length > MAX_BODY ? { truncated: true, length: text.length, start: utf8.decode(encoder.encode(text.slice(0, 1024))) } : text
}

// A cached answer is sent again and again: its summary is made once.
const summaries = new WeakMap<Uint8Array, { truncated: true; length: number; start: string }>()
function summaryOf(bytes: Uint8Array): { truncated: true; length: number; start: string } {
  let summary = summaries.get(bytes)
  if (!summary) summaries.set(bytes, (summary = { truncated: true, length: bytes.length, start: utf8.decode(bytes.subarray(0, 1024)) }))
  return summary
}

function parsed(text: string | { truncated: true }): unknown {
  if (typeof text !== 'string') return text
  if (!text) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Header values other than secrets; a `set-cookie` or token never leaves the record. */
function shownHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  if (!headers) return out
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = SECRET_HEADERS.test(name) ? REDACTED : value
  return out
}

/** keyIdOf's id for a key the world does not know, without keeping it (a fuzzer sends many). */
const unknownKeyId = (key: string): string => `key_${hashString(`shoptwin-key/${key}`).toString(16).padStart(8, '0')}`

/** A decision, or how to make it when the trace is read, from what the step had (see decide). */
export type DecisionBuilder<A = any, B = any> = (record: TraceRecord, a: A, b: B) => TraceDecision

/**
 * One request's trace as the pipeline fills it. Kept for the next `size` requests, so it holds few
 * objects: a decision is a builder and its (at most two) arguments, the values the step already had,
 * made into text only when the trace is read. (Eager decisions, objects and strings per step, made
 * the collector's work several times that of an untraced cached answer.)
 */
export class TraceRecord {
  readonly #n: number
  readonly via: TraceSummary['via']
  readonly method: string
  /** The operation called and the one whose handler answers (null when none matched). */
  readonly calledOp: OperationInfo | undefined
  readonly op: OperationInfo | undefined
  status = 0
  durationMs = 0
  /** builder or decision, a, b; builder or decision, a, b; ... */
  readonly #steps: unknown[] = []
  #store: Store
  #now: Date
  // The path and query rather than the URL: a trace lives for the next `size` requests (as the journal's entries).
  #path: string
  #search: string
  #headers: RequestHeaders
  #bodyText: ReturnType<typeof kept>
  // Until the answer: then only the caller's redacted id is kept (a context holds the world of its time).
  #ctx: Pick<RequestContext, 'apiKey' | 'connector'> | undefined
  #key: string | null = null
  /** The connection of a connector call. */
  connector: ConnectorActor | undefined
  #answerHeaders: Record<string, string> | undefined
  #answerText: ReturnType<typeof kept> | undefined
  #answerBytes: Uint8Array | undefined
  /** The `error` of an error answer. */
  error: string | undefined

  constructor(store: Store, request: { method: string; url: URL; headers: RequestHeaders; bodyText: string; now: Date }, via: TraceSummary['via'], ctx?: RequestContext, bodyText = request.bodyText) {
    this.#n = store.sink ? store.sink.nextId() : ++lastId
    this.#store = store
    this.method = request.method
    this.#path = request.url.pathname
    this.#search = request.url.search
    this.#headers = request.headers
    this.#bodyText = kept(bodyText)
    this.#now = request.now
    this.via = via
    this.#ctx = ctx
    this.calledOp = ctx?.calledOp
    this.op = ctx?.op
    this.connector = ctx?.connector
  }

  get id(): string {
    return String(this.#n)
  }

  /** The trace's number (ids are its decimal text). */
  get n(): number {
    return this.#n
  }

  get operationId(): string | null {
    return this.calledOp?.operationId ?? null
  }

  get path(): string {
    return this.#path
  }

  /** The caller's redacted id (`key_1a2b3c4d`, or the connection), once the answer is known. */
  get key(): string | null {
    return this.#key
  }

  /** The `x-shop-id` sent, trimmed. */
  get shopId(): string | null {
    return this.#headers.get('x-shop-id')?.trim() ?? null
  }

  /**
   * Records one decision of a step: a TraceDecision (a constant, or one made on a rare path), or a
   * builder and its arguments, called when the trace is read. A builder must only read what stays as
   * it was (records of the world, a decision object the step made, numbers, strings).
   */
  decide(decision: TraceDecision): void
  decide<A, B>(build: DecisionBuilder<A, B>, a: A, b: B): void
  decide<A>(build: DecisionBuilder<A, undefined>, a: A): void
  decide(build: TraceDecision | DecisionBuilder, a?: unknown, b?: unknown): void {
    this.#steps.push(build, a, b)
  }

  /** The decisions, in order, as data. */
  get decisions(): TraceDecision[] {
    const out: TraceDecision[] = []
    const steps = this.#steps
    for (let i = 0; i < steps.length; i += 3) {
      const step = steps[i] as TraceDecision | DecisionBuilder
      out.push(typeof step === 'function' ? step(this, steps[i + 1], steps[i + 2]) : step)
    }
    return out
  }

  /** Runs the handler with this record receiving the named writes it makes (handlers are synchronous, so the attribution is exact). */
  handler<T>(name: string, specSection: string, run: () => T): T {
    this.decide(handlerDecision, name, specSection)
    const previous = this.#store.current
    this.#store.current = this
    try {
      return run()
    } finally {
      this.#store.current = previous
    }
  }

  /** The answer is known (`durationMs`: the journal's measure of the request): records it and returns it with its trace header (the body serialized once, here, and sent as such). */
  finish(result: ApiResult, durationMs = 0): ApiResult {
    this.durationMs = durationMs
    const ctx = this.#ctx
    const sentKey = ctx?.apiKey || ctx?.connector ? null : this.#headers.get('x-api-key')
    this.#key = ctx?.connector ? ctx.connector.connection_id : ctx?.apiKey ? keyIdOf(ctx.apiKey.key) : sentKey ? unknownKeyId(sentKey) : null
    this.#ctx = undefined
    this.status = result.dropConnection ? 0 : result.status
    this.#answerHeaders = result.headers
    const headers: Record<string, string> = { ...result.headers }
    headers[TRACE_HEADER] = String(this.#n)
    let out: ApiResult
    if (result.rawBytes) {
      // A big cached answer is summarised too: the cache may drop it while the ring still holds the trace.
      if (result.rawBytes.length > MAX_BODY) this.#answerText = summaryOf(result.rawBytes)
      else this.#answerBytes = result.rawBytes
      out = { status: result.status, rawBytes: result.rawBytes, headers }
    } else {
      const text = result.status === 204 ? '' : serializeBody(result)
      this.#answerText = kept(text)
      // `body` stays for callers of OperationRoute.run that read it; what is sent is `rawBody`.
      out = result.body === undefined ? { status: result.status, rawBody: text, headers } : { status: result.status, body: result.body, rawBody: text, headers }
    }
    if (result.dropConnection) out.dropConnection = true
    else if (result.status >= 400) {
      const error = (result as { body?: { error?: unknown } }).body?.error
      if (typeof error === 'string') this.error = error
    }
    this.#steps.push(answerDecision, undefined, undefined)
    this.#store.push(this)
    return out
  }

  summary(): TraceSummary {
    return {
      id: this.id,
      time: this.#now.toISOString(),
      method: this.method,
      path: this.#path,
      query: this.#search,
      operationId: this.operationId,
      status: this.status,
      shop: this.#headers.get('x-shop-id'),
      key: this.#key,
      via: this.via,
      durationMs: this.durationMs,
    }
  }

  toJSON(): Trace {
    const summary = this.summary()
    const text = this.#answerBytes ? utf8.decode(this.#answerBytes) : (this.#answerText ?? '')
    return {
      ...summary,
      decisions: this.decisions,
      request: { method: this.method, url: `${this.#path}${this.#search}`, headers: redactHeaders(this.#headers), body: parsed(this.#bodyText) },
      response: { status: this.status, headers: { ...shownHeaders(this.#answerHeaders), [TRACE_HEADER]: this.id }, body: parsed(text) },
    }
  }

  /**
   * The trace as a shared store keeps it (secrets redacted, as toJSON): its summary's JSON (what a
   * list shows), the JSON of the rest but the two bodies, and the bodies as they were sent (text or
   * bytes, not parsed and written again); a body kept as a summary is in the JSON. `storedTrace`
   * makes the Trace again.
   */
  stored(): StoredTrace {
    const request = { method: this.method, url: `${this.#path}${this.#search}`, headers: redactHeaders(this.#headers) }
    const response = { status: this.status, headers: { ...shownHeaders(this.#answerHeaders), [TRACE_HEADER]: this.id } }
    const requestBody = this.#bodyText
    const responseBody = this.#answerBytes ?? this.#answerText ?? ''
    const summaries = { request: typeof requestBody === 'string' ? null : requestBody, response: typeof responseBody === 'object' && !(responseBody instanceof Uint8Array) ? responseBody : null }
    return {
      summary: JSON.stringify(this.summary()),
      meta: JSON.stringify({ decisions: this.decisions, request, response, summaries }),
      requestBody: typeof requestBody === 'string' ? requestBody : '',
      responseBody: typeof responseBody === 'string' || responseBody instanceof Uint8Array ? responseBody : '',
    }
  }
}

/** A trace as a shared store keeps it (TraceRecord.stored). */
export interface StoredTrace {
  summary: string
  meta: string
  requestBody: string
  responseBody: string | Uint8Array
}

/** The Trace of a stored one (bodies parsed as toJSON does). */
export function storedTrace(summary: string, meta: string, requestBody: string, responseBody: string): Trace {
  const { summaries, ...trace } = JSON.parse(meta) as Pick<Trace, 'decisions'> & { request: Omit<Trace['request'], 'body'>; response: Omit<Trace['response'], 'body'>; summaries: { request: unknown; response: unknown } }
  return {
    ...(JSON.parse(summary) as TraceSummary),
    decisions: trace.decisions,
    request: { ...trace.request, body: summaries.request ?? parsed(requestBody) },
    response: { ...trace.response, body: summaries.response ?? parsed(responseBody) },
  }
}

function operationDecision(record: TraceRecord): TraceDecision {
  const { calledOp, op } = record
  if (!calledOp || !op) return { step: 'operation', outcome: 'matched', spec: 'Endpoints', summary: `${record.method} ${record.path}` }
  const alias = calledOp !== op
  return {
    step: 'operation',
    outcome: 'matched',
    spec: alias ? `Versioning; ${op.specSection || 'Endpoints: Conventions 4'}` : calledOp.specSection || 'Endpoints: Conventions 8',
    summary: `${record.method} ${record.path} is ${calledOp.operationId} (permission ${calledOp.permission})${alias ? `, an alias of ${op.operationId}` : ''}`,
    detail: { operationId: calledOp.operationId, permission: calledOp.permission, path: calledOp.path, ...(alias ? { aliasOf: op.operationId } : {}) },
  }
}

function handlerDecision(_record: TraceRecord, name: string, specSection: string): TraceDecision {
  return { step: 'handler', outcome: 'ran', spec: specSection || 'Endpoints', summary: `ran the ${name} handler`, detail: { handler: name } }
}

function answerDecision(record: TraceRecord): TraceDecision {
  const { status } = record
  if (status === 0) return { step: 'answer', outcome: 'dropped', spec: 'mock: certify-client adversity', summary: 'dropped the connection without an answer' }
  return { step: 'answer', outcome: String(status), spec: status >= 400 ? 'Errors' : 'Endpoints: Conventions', summary: `answered ${status}${record.error !== undefined ? `: ${record.error}` : ''}` }
}

interface Store extends TraceStore {
  current: TraceRecord | undefined
  push(record: TraceRecord): void
}

/** A bounded store of traces. */
export function createTraceStore({ enabled = true, size = 1000 }: TraceStoreOptions = {}): TraceStore {
  if (!Number.isInteger(size) || size < 1) throw new RangeError('trace size must be an integer >= 1')
  let ring: Array<TraceRecord | undefined> = new Array(size)
  /** Where the next trace goes. */
  let head = 0
  let count = 0
  const listeners = new Set<(summary: TraceSummary) => void>()
  const clearListeners = new Set<() => void>()

  const newestFirst = function* (): Generator<TraceRecord> {
    for (let i = 1; i <= count; i++) yield ring[(head - i + size) % size]!
  }
  /** The record of an id (a scan from the newest: reads are rare, and concurrent requests finish out of order). */
  const find = (id: string): TraceRecord | undefined => {
    if (!/^\d{1,15}$/.test(id)) return undefined
    const n = Number(id)
    for (const record of newestFirst()) if (record.n === n) return record
    return undefined
  }

  const store: Store = {
    enabled,
    sink: undefined,
    current: undefined,
    get size() {
      return count
    },
    capacity: size,
    begin(ctx, bodyText = ctx.bodyText) {
      if (!store.enabled) return undefined
      const record = new TraceRecord(store, ctx, ctx.connector ? 'mcp' : 'rest', ctx, bodyText)
      record.decide(operationDecision, undefined)
      return record
    },
    unmatched(request, reason, result) {
      if (!store.enabled) return result
      const record = new TraceRecord(store, request, 'rest')
      record.decide(reason)
      return record.finish(result)
    },
    push(record) {
      ring[head] = record
      head = (head + 1) % size
      if (count < size) count++
      store.sink?.push(record)
      if (listeners.size) {
        const summary = record.summary()
        for (const listener of listeners) listener(summary)
      }
    },
    get(id) {
      return find(String(id))?.toJSON()
    },
    last() {
      return count ? ring[(head - 1 + size) % size]!.toJSON() : undefined
    },
    list(filter = {}) {
      const { after, limit } = filter
      const out: TraceSummary[] = []
      const afterId = after === undefined ? 0 : Number(after)
      for (const record of newestFirst()) {
        if (record.n <= afterId) continue
        if (limit !== undefined && out.length >= limit) break
        const s = record.summary()
        if (traceMatches(s, filter)) out.push(s)
      }
      return out.reverse()
    },
    explain(response) {
      const id = traceIdOf(response)
      return id === null ? undefined : store.get(id)
    },
    subscribe(listener, onClear) {
      listeners.add(listener)
      if (onClear) clearListeners.add(onClear)
      return () => {
        listeners.delete(listener)
        if (onClear) clearListeners.delete(onClear)
      }
    },
    noteWrite(write) {
      store.current?.decide({
        step: 'write',
        outcome: 'applied',
        spec: 'Resources and their fields; Rules of the named resources',
        summary: `wrote ${write.area}.${write.name} (state version ${write.version})`,
        detail: { area: write.area, name: write.name, input: write.input, version: write.version },
      })
    },
    clear() {
      ring = new Array(size)
      head = 0
      count = 0
      for (const onClear of clearListeners) onClear()
    },
  }
  const ref = new WeakRef<TraceStore>(store)
  stores.add(ref)
  forget?.register(store, ref)
  return store
}

function traceIdOf(response: Response | { headers: Headers | Record<string, string> } | string): string | null {
  if (typeof response === 'string') return response
  const headers = response.headers
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(TRACE_HEADER)
  const record = headers as Record<string, string>
  return record[TRACE_HEADER] ?? Object.entries(record).find(([k]) => k.toLowerCase() === TRACE_HEADER)?.[1] ?? null
}

/**
 * The trace of an answer of any mock in this process, from its `x-shoptwin-trace` header:
 * `expect(res.status, formatTrace(explain(res))).toBe(200)`. Undefined once the trace left its ring.
 */
export function explain(response: Response | { headers: Headers | Record<string, string> } | string): Trace | undefined {
  const id = traceIdOf(response)
  if (id === null) return undefined
  for (const ref of stores) {
    const found = ref.deref()?.get(id)
    if (found) return found
  }
  return undefined
}
