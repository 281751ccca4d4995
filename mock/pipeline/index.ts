/**
 * The request pipeline, composed in one place. Order matters:
 * journal → activity log → certification (a client's session, when attached) → error boundary → twin sync (a shared store's catch-up) → (strict) response check → faults → Prefer → auth → rate limit →
 * response cache → validation → paging → idempotency → write version → certification effect → the area handler.
 */
import { activity } from './activity.ts'
import { auth } from './auth.ts'
import { certification, certificationEffect } from './certification.ts'
import type { ApiResult } from '../respond.ts'
import { compose, type RequestContext, type Step } from './compose.ts'
import { dispatch } from './dispatch.ts'
import { errorBoundary } from './error-boundary.ts'
import { faults } from './faults.ts'
import { idempotency } from './idempotency.ts'
import { journal } from './journal.ts'
import { paging } from './paging.ts'
import { prefer } from './prefer.ts'
import { rateLimit } from './rate-limit.ts'
import { responseCache, writeVersion } from './response-cache.ts'
import { responseCheck } from './response-check.ts'
import { twinSync } from './twin-sync.ts'
import { validate } from './validate.ts'

export type { Awaitable, RequestContext, RequestHeaders, Step, Final, Next } from './compose.ts'
export { compose, requestContext } from './compose.ts'

export interface PipelineOptions {
  /** Where unexpected errors are logged (default console.error). */
  log?: (error: unknown) => void
}

/** The standard pipeline every operation runs through. */
export function createPipeline({ log }: PipelineOptions = {}): (ctx: RequestContext) => Promise<ApiResult> {
  const steps: Step[] = [
    journal(),
    activity(),
    certification(),
    errorBoundary(log ? { log } : {}),
    twinSync(),
    responseCheck(),
    faults(),
    prefer(),
    auth(),
    rateLimit(),
    responseCache(),
    validate(),
    paging(),
    idempotency(),
    writeVersion(),
    certificationEffect(),
  ]
  const run = compose(steps, dispatch())
  // The journal, first of the steps, is async: this is the promise it returned.
  return (ctx) => Promise.resolve(run(ctx))
}
