/**
 * The decisions of the pipeline's steps as trace entries: each step makes one call with the values
 * it already has, `ctx.trace?.decide(rateLimitDecision, decision)`; the wording and the spec section
 * live here. On the paths every request takes, a decision is a builder called when the trace is read
 * (TraceRecord.decide); on rare paths (refusals, faults) it is made at once. With tracing off
 * `ctx.trace` is undefined and nothing is built.
 */
import type { ApiError } from '../respond.ts'
import type { RequestContext } from '../context.ts'
import type { Fault } from '../stores/faults.ts'
import type { IdempotencyClaim } from '../stores/idempotency.ts'
import type { RateDecision } from '../stores/rate-limiter.ts'
import type { PageWindow } from '../pipeline/paging.ts'
import type { Adversity } from '../pipeline/certification.ts'
import { keyIdOf } from '../connector/activity.ts'
import type { TraceDecision } from './types.ts'
import type { TraceRecord } from './store.ts'
import type { ApiKeyRecord, ShopRecord } from '../world.ts'

/** The checks of the auth step, in the order it makes them, with the spec section of each. */
const AUTH_CHECKS = {
  key: 'Authentication 1; Errors (401 inferred: the spec does not show the status)',
  'shop-header': 'Authentication 1; Errors',
  route: 'Authentication 3',
  tier: 'What the service does; Authentication 4',
  shop: 'Authentication 3; Errors',
  'plan-paid': 'Authentication 5',
  'plan-scale': 'What the service does; Authentication 5',
} as const
export type AuthCheck = keyof typeof AUTH_CHECKS

const who = (ctx: RequestContext) =>
  ctx.connector ? { connection: ctx.connector.connection_id, client: ctx.connector.client_name } : ctx.apiKey ? { key: keyIdOf(ctx.apiKey.key), label: ctx.apiKey.label, tier: ctx.apiKey.tier } : {}

/** Records the auth check that refused the request; returns the error to throw. */
export function authRefused(ctx: RequestContext, check: AuthCheck, error: ApiError): ApiError {
  ctx.trace?.decide({
    step: 'auth',
    outcome: 'refused',
    spec: AUTH_CHECKS[check],
    summary: `${check} check refused: ${error.status} ${error.body.error}`,
    detail: { check, ...who(ctx), permission: ctx.calledOp.permission, shop: ctx.headers.get('x-shop-id') },
  })
  return error
}

/** Every check passed: who called, for which shop, under which permission and plan gate. */
export function authPassed(record: TraceRecord, apiKey: ApiKeyRecord | undefined, shop: ShopRecord | undefined): TraceDecision {
  const op = record.calledOp!
  const canonical = record.op!
  const gate = op.planGate ?? canonical.planGate
  const checks = ['key', ...(shop ? ['shop-header'] : []), `route ${apiKey?.routes === '*' ? '(all routes)' : op.permission}`, ...((op.enterprise || canonical.enterprise) ? ['tier enterprise'] : []), ...(shop ? [`shop ${apiKey?.shops === '*' ? '(all shops)' : 'in the key\'s shops'}`] : []), ...(gate ? [`plan gate ${gate} (shop plan ${shop?.plan}, ${shop?.is_active ? 'active' : 'inactive'})`] : [])]
  const connector = record.connector
  const caller = connector ? { connection: connector.connection_id, client: connector.client_name } : apiKey ? { key: keyIdOf(apiKey.key), label: apiKey.label, tier: apiKey.tier } : {}
  return {
    step: 'auth',
    outcome: 'passed',
    spec: 'Authentication',
    summary: `${connector ? `connection ${connector.connection_id}` : `key ${keyIdOf(apiKey!.key)} (${apiKey!.label}, ${apiKey!.tier})`}${shop ? ` for shop ${shop.shop_id} (${shop.plan})` : ''}: ${checks.join(', ')}`,
    detail: { ...caller, permission: op.permission, shop: shop?.shop_id ?? null, plan: shop?.plan ?? null, planGate: gate ?? null, checks },
  }
}

export const authNotNeeded: TraceDecision = { step: 'auth', outcome: 'none', spec: 'Authentication 2', summary: 'GET /health needs no key' }

/** The rate limiter's answer: the (key, shop) counter, its window and limit. */
export function rateLimitDecision(record: TraceRecord, decision: RateDecision): TraceDecision {
  const { perDay } = decision
  const counter = `${record.key ?? '-'} x ${record.shopId || '-'}`
  const window = { second: { count: decision.secondCount, limit: decision.perSecond, windowStart: new Date(decision.windowStart).toISOString() }, day: { count: decision.dayCount, limit: perDay, day: decision.day } }
  if (decision.allowed) {
    return { step: 'rate-limit', outcome: 'allowed', spec: 'Limits', summary: `counter ${counter}: ${decision.secondCount}/${decision.perSecond} this second, ${decision.dayCount}/${perDay} today`, detail: { counter, ...window } }
  }
  return {
    step: 'rate-limit',
    outcome: 'limited',
    spec: 'Limits; Errors',
    summary: `counter ${counter} is full for the ${decision.window} (${decision.window === 'second' ? `${decision.secondCount}/${decision.limit} since ${new Date(decision.windowStart).toISOString()}` : `${decision.dayCount}/${decision.limit} on ${decision.day}`}): 429, retry after ${decision.retryAfterSeconds} s`,
    detail: { counter, ...window, retryAfterSeconds: decision.retryAfterSeconds },
  }
}

export const rateLimitOff: TraceDecision = { step: 'rate-limit', outcome: 'off', spec: 'Limits', summary: 'rate limit turned off on this mock (createMockState({ rateLimit: false }) / --rate-limit off)' }

/** What the idempotency store said of the key. */
export function idempotencyDecision(record: TraceRecord, key: string, claim: IdempotencyClaim): TraceDecision {
  const shopId = record.shopId ?? '-'
  const detail = { key, shop: shopId }
  switch (claim.kind) {
    case 'started':
      return { step: 'idempotency', outcome: 'claimed', spec: 'Idempotency; States and transitions', summary: `claimed key ${key} for shop ${shopId}: processing; the answer will be cached 24 hours`, detail }
    case 'in-flight':
      return {
        step: 'idempotency',
        outcome: 'in-flight',
        spec: 'Idempotency; Errors',
        summary: `409: key ${key} is held${claim.trace ? ` by trace ${claim.trace}` : ''}, still in flight (60 s window)`,
        detail: { ...detail, holder: claim.trace ?? null },
      }
    case 'replay':
      return {
        step: 'idempotency',
        outcome: 'replayed',
        spec: 'Idempotency; States and transitions',
        summary: `replayed the ${claim.entry.responseStatus} answered${claim.entry.trace ? ` in trace ${claim.entry.trace}` : ''} to key ${key}, byte for byte; the handler did not run`,
        detail: { ...detail, replayedFrom: claim.entry.trace ?? null, status: claim.entry.responseStatus, expiresAt: claim.entry.expiresAt ? new Date(claim.entry.expiresAt).toISOString() : null },
      }
  }
}

export const idempotencyNoKey: TraceDecision = { step: 'idempotency', outcome: 'no-key', spec: 'Idempotency', summary: 'no Idempotency-Key header: the write behaves normally, nothing cached' }

export function idempotencyRefused(reason: 'format' | 'elsewhere', key: string, message: string): TraceDecision {
  return { step: 'idempotency', outcome: 'refused', spec: reason === 'format' ? 'Idempotency; Errors; Limits' : 'inferred: a key replays only the operation it was first used on', summary: `400: ${message}`, detail: { key: key.length > 200 ? `${key.slice(0, 200)}...` : key } }
}

export function idempotencyReleased(key: string, status: number | 'exception'): TraceDecision {
  return { step: 'idempotency', outcome: 'released', spec: 'Idempotency; States and transitions', summary: `${status === 'exception' ? 'an exception' : `a ${status}`} is not cached: key ${key} is free again, a retry can succeed` }
}

export function idempotencyCompleted(_record: TraceRecord, key: string, status: number): TraceDecision {
  return { step: 'idempotency', outcome: 'completed', spec: 'Idempotency; States and transitions', summary: `cached the ${status} under key ${key} (completed, 24 hours)` }
}

export const validationPassed: TraceDecision = { step: 'validation', outcome: 'passed', spec: 'Endpoints; Errors', summary: 'the request matches the contract' }

/** Every failing field (when ajv could list them), and the one message the answer carries. */
export function validationDecision(failures: string[], answered: string): TraceDecision {
  const all = failures.length ? failures : [answered]
  return {
    step: 'validation',
    outcome: 'failed',
    spec: 'Errors (400 validation error)',
    summary: `${all.length} failing field${all.length === 1 ? '' : 's'}; the answer names "${answered}"`,
    detail: { failures: all },
  }
}

export function faultDecision(fault: Fault): TraceDecision {
  return {
    step: 'fault',
    outcome: 'injected',
    spec: 'mock: control API, POST /__admin/faults',
    summary: `fault ${fault.id} on route ${fault.route}${fault.latency_ms ? `: ${fault.latency_ms} ms latency` : ''}${fault.status !== undefined ? `${fault.latency_ms ? ',' : ':'} answered ${fault.status}` : ''} (${fault.remaining} more to go)`,
    detail: { ...fault },
  }
}

export function preferDecision(status: number): TraceDecision {
  return { step: 'prefer', outcome: 'simulated', spec: 'inferred: Prism\'s Prefer: code=NNN', summary: `Prefer: code=${status} answered the documented ${status} without running the operation` }
}

export function cacheDecision(_record: TraceRecord, hit: boolean, version: number): TraceDecision {
  return hit
    ? { step: 'cache', outcome: 'hit', spec: 'mock: response cache (the same request at the same state version)', summary: `answered from the response cache (state version ${version}); validation and the handler did not run`, detail: { version } }
    : { step: 'cache', outcome: 'miss', spec: 'mock: response cache', summary: `not in the response cache at state version ${version}: computed`, detail: { version } }
}

export function pagingDecision(_record: TraceRecord, asked: unknown, window: PageWindow): TraceDecision {
  const clamped = typeof asked === 'number' && asked !== window.pageSize
  return {
    step: 'paging',
    outcome: clamped ? 'clamped' : 'window',
    spec: 'Limits; Endpoints: Conventions 6',
    summary: `page ${window.page} of ${window.pageSize}${clamped ? ` (asked ${asked}, clamped)` : ''}, rows ${window.offset + 1}-${window.offset + window.limit} (depth cap ${window.depthCap})`,
    detail: { ...window },
  }
}

export function adversityDecision(adversity: Adversity): TraceDecision {
  return { step: 'certification', outcome: 'injected', spec: 'mock: certify-client adversity', summary: `certification session injected "${adversity.situation}" (${adversity.kind}${adversity.kind === 'status' ? ` ${adversity.status}` : ''})` }
}
