/**
 * A trace: why the twin answered as it did. Every answer of the pipeline carries `x-shoptwin-trace: <id>`;
 * the trace lists the decisions the steps made, in order, each with the spec section behind it.
 * Plain data (JSON): `GET /__admin/traces/<id>`, `state.traces.get(id)`, `explain(response)`.
 */

/** The pipeline step a decision comes from. */
export type TraceStep =
  | 'operation'
  | 'certification'
  | 'fault'
  | 'prefer'
  | 'auth'
  | 'rate-limit'
  | 'cache'
  | 'validation'
  | 'paging'
  | 'idempotency'
  | 'handler'
  | 'write'
  | 'answer'

/** One decision of one step. */
export interface TraceDecision {
  step: TraceStep
  /** What the step decided, one word: `matched`, `none`, `passed`, `refused`, `allowed`, `limited`, `claimed`, `replayed`, `in-flight`, `failed`, `injected`, `hit`, `miss`, `ran`... */
  outcome: string
  /** The section of the spec the decision applies (`Authentication 3`, `Limits`, `Idempotency`); `inferred: ...` where the spec is silent, `mock: ...` for the twin's own controls. */
  spec: string
  /** One line a person reads. */
  summary: string
  /** The figures behind it (counters, windows, the failing fields...). */
  detail?: Record<string, unknown>
}

/** The list row of a trace (also what the console's live feed sends). */
export interface TraceSummary {
  id: string
  /** Mock-clock time of arrival (ISO). */
  time: string
  method: string
  path: string
  /** The query string, `?` included ('' when none). */
  query: string
  /** The operation called (null when none matched). */
  operationId: string | null
  status: number
  /** The `x-shop-id` sent (null when none). */
  shop: string | null
  /** A non-secret id of the caller's key (`key_1a2b3c4d`), the connection of a connector call, or null. */
  key: string | null
  /** `rest` (the API), `mcp` (a connector tool call). */
  via: 'rest' | 'mcp'
  /** Wall-clock time in the pipeline, ms. */
  durationMs: number
}

/** A whole trace. */
export interface Trace extends TraceSummary {
  decisions: TraceDecision[]
  /** The request as received, secrets redacted (as in the journal). */
  request: { method: string; url: string; headers: Record<string, string>; body: unknown }
  /** The answer as sent. */
  response: { status: number; headers: Record<string, string>; body: unknown }
}

export const TRACE_HEADER = 'x-shoptwin-trace'
