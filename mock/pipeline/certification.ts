/**
 * Client certification (shoptwin certify-client, conformance/certify-client/): while a session is attached to
 * a state, every request is recorded for grading (never the API key: a short id of it) and the
 * session's adversity schedule may answer in the service's documented ways (429, 5xx, a dropped
 * connection, 409, a real change before an update). Without a session both steps only call next().
 */
import type { OperationInfo } from '../../openapi/index.ts'
import { apiError, isApiError, serializeBody, type ApiResult } from '../respond.ts'
import type { MockState } from '../state.ts'
import type { Awaitable, Next, RequestContext, Step } from './compose.ts'
import { adversityDecision } from '../trace/decisions.ts'

/** One request of a certification session, as the client rules read it. */
export interface RecordedRequest {
  /** Wall order of arrival (1-based). */
  seq: number
  /** Mock-clock time of arrival (ms since the epoch). */
  atMs: number
  method: string
  path: string
  /** The query string, `?` included ('' when none). */
  query: string
  operationId: string
  /** The `x-shop-id` header as sent (null when absent). */
  shopId: string | null
  /** A short id of the `x-api-key` sent (never the key), null when none was sent. */
  keyId: string | null
  /** The `content-type` header as sent. */
  contentType: string | null
  idempotencyKey: string | null
  /** The body as text ('' when none; summarised past 64 KB). */
  bodyText: string
  /** The status answered; 0 when the connection was dropped. */
  status: number
  /** Seconds of a `Retry-After` header answered, else null. */
  retryAfter: number | null
  /** The operation acted (a write that reached its handler, not a replay, answered below 400). */
  applied: boolean
  /** Answered from the idempotency store. */
  replayed: boolean
  /** The situation the adversity schedule produced on this request, if any. */
  injected?: string
  /** The error message of a 4xx/5xx answer, or what the session noted of the answer (`refreshing`). */
  note?: string
  /** A paged listing's depth: the rows it held for the request's query before the page cut (absent when no handler paged it). */
  listingRows?: number
}

/** What the schedule does to one request. */
export type Adversity =
  /** Answers this error; `apply` runs the operation first (it acted, the client sees an error). */
  | { kind: 'status'; situation: string; status: number; message: string; headers?: Record<string, string>; apply?: boolean }
  /** Drops the connection without an answer; `apply` runs the operation first. */
  | { kind: 'drop'; situation: string; apply?: boolean }
  /** Holds the write `ms` (wall clock) after it claimed its Idempotency-Key, then runs it: a client timing out retries into a 409 in flight. */
  | { kind: 'slow'; situation: string; ms: number }
  /** Changes the state before the operation runs, through the control API (a board edited by someone else). */
  | { kind: 'before'; situation: string; run: () => Promise<unknown> | unknown }

export interface CertificationHooks {
  /** The adversity for this request (called once per request, in arrival order), or undefined. */
  adversity(request: Readonly<RecordedRequest>, op: OperationInfo): Adversity | undefined
  /** A short note on a success answer worth keeping (the halo report's `refreshing`), or undefined. */
  note?(op: OperationInfo, body: () => string): string | undefined
  /** Receives the finished entry. */
  record(entry: RecordedRequest): void
  /** A short, stable id of an API key. */
  keyId(key: string): string
}

/** A session attached to a mock state (`state.certification`). */
export interface CertificationSession {
  hooks: CertificationHooks
  nextSeq: number
}
type Session = CertificationSession
const entries = new WeakMap<RequestContext, RecordedRequest>()
/** Writes the schedule holds back, and for how long. */
const slow = new WeakMap<RequestContext, number>()
// A plain timer rather than node:timers, so the handlers also run in the browser (setupWorker).
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Attaches a certification session to a state (one at a time); returns the function that detaches it. */
export function attachCertification(state: MockState, hooks: CertificationHooks): () => void {
  // A session's adversity schedule and its record of requests belong to one process: not to a twin many replicas share.
  if (state.twin.shared) throw new Error(`client certification runs on a twin of its own, not on a shared store (--store): start certify-client without --store`)
  const session: Session = { hooks, nextSeq: 1 }
  state.certification = session
  return () => {
    if (state.certification === session) state.certification = undefined
  }
}

const MAX_BODY = 64 * 1024

function entryOf(ctx: RequestContext, session: Session): RecordedRequest {
  const { hooks } = session
  const key = ctx.headers.get('x-api-key')
  return {
    seq: session.nextSeq++,
    atMs: ctx.now.getTime(),
    method: ctx.method,
    path: ctx.url.pathname,
    query: ctx.url.search,
    operationId: ctx.calledOp.operationId,
    shopId: ctx.headers.get('x-shop-id'),
    keyId: key === null ? null : hooks.keyId(key),
    contentType: ctx.headers.get('content-type'),
    idempotencyKey: ctx.headers.get('idempotency-key'),
    bodyText: ctx.bodyText.length > MAX_BODY ? ctx.bodyText.slice(0, 1024) : ctx.bodyText,
    status: 0,
    retryAfter: null,
    applied: false,
    replayed: false,
  }
}

const errorMessage = (result: ApiResult): string | undefined => {
  if (isApiError(result)) return result.body.error
  try {
    return (JSON.parse(serializeBody(result)) as { error?: string }).error
  } catch {
    return undefined
  }
}

function certified(ctx: RequestContext, session: Session, next: Next): Awaitable<ApiResult> {
  const { hooks } = session
  const entry = entryOf(ctx, session)
  entries.set(ctx, entry)
  const adversity = hooks.adversity(entry, ctx.calledOp)
  if (adversity) ctx.trace?.decide(adversityDecision(adversity))
  if (adversity?.kind === 'slow') {
    entry.injected = adversity.situation
    slow.set(ctx, adversity.ms)
  }
  if (!adversity || adversity.kind === 'slow') {
    // The common case without a promise of its own: the recording's cost stays small.
    const result = next()
    return result instanceof Promise ? result.then((r) => finish(ctx, hooks, entry, r)) : finish(ctx, hooks, entry, result)
  }
  return withAdversity(ctx, hooks, entry, adversity, next)
}

async function withAdversity(ctx: RequestContext, hooks: CertificationHooks, entry: RecordedRequest, adversity: Exclude<Adversity, { kind: 'slow' }>, next: Next): Promise<ApiResult> {
  entry.injected = adversity.situation
  let result: ApiResult
  if (adversity.kind === 'before') {
    await adversity.run()
    result = await next()
  } else {
    if (adversity.apply) await next()
    result = adversity.kind === 'drop' ? { status: 0, dropConnection: true } : apiError(adversity.status, adversity.message, adversity.headers)
  }
  return finish(ctx, hooks, entry, result)
}

function finish(ctx: RequestContext, hooks: CertificationHooks, entry: RecordedRequest, result: ApiResult): ApiResult {
  entry.status = result.status
  const retryAfter = result.headers?.['retry-after']
  if (retryAfter !== undefined) entry.retryAfter = Number(retryAfter)
  entry.replayed = result.headers?.['idempotent-replayed'] === 'true'
  if (ctx.page?.rows !== undefined && result.status > 0 && result.status < 400) entry.listingRows = ctx.page.rows
  if (result.status >= 400) entry.note = errorMessage(result)
  else if (hooks.note && result.status > 0) entry.note = hooks.note(ctx.calledOp, () => serializeBody(result))
  hooks.record(entry)
  return result
}

/** Records the request and applies the session's adversity; outermost of the steps that answer. */
export const certification = (): Step =>
  function certification(ctx, next) {
    const session = ctx.state.certification
    // Calls through the assistant connector are the connector's, not the REST client's under grading.
    return session && !ctx.connector ? certified(ctx, session, next) : next()
  }

/** Notes whether an idempotent write acted (and holds a slow one): last step before the handler, so replays and refusals never reach it. */
export const certificationEffect = (): Step =>
  function certificationEffect(ctx, next) {
    const entry = entries.get(ctx)
    if (!entry || (!ctx.calledOp.idempotent && !ctx.op.idempotent)) return next()
    const hold = slow.get(ctx)
    const run = hold === undefined ? next() : sleep(hold).then(next)
    return Promise.resolve(run).then((result) => {
      if (result.status < 400) entry.applied = true
      return result
    })
  }
