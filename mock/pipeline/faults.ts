import { apiError, type ApiResult } from '../respond.ts'
import type { Fault } from '../stores/faults.ts'
import type { Next, Step } from './compose.ts'
import { faultDecision } from '../trace/decisions.ts'

// A plain timer rather than node:timers, so the handlers also run in the browser (setupWorker).
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Applies faults injected through the control API (latency, error status) to the next N matching requests. */
export const faults = (): Step =>
  function faults(ctx, next) {
    // The operation carries the three names a fault's route is matched against.
    if (!ctx.state.faults.peek(ctx.calledOp)) return next()
    // Taking a fault counts it down, a change of the twin's state: a write of its own on a shared store.
    const taken = ctx.state.exclusive(() => ctx.state.faults.take(ctx.calledOp))
    const apply = (fault: Fault | undefined) => {
      if (fault) ctx.trace?.decide(faultDecision(fault))
      return fault ? withFault(fault, next) : next()
    }
    return taken instanceof Promise ? taken.then(apply) : apply(taken)
  }

async function withFault(fault: Fault, next: Next): Promise<ApiResult> {
  if (fault.latency_ms) await sleep(fault.latency_ms)
  if (fault.status !== undefined) return apiError(fault.status, fault.message ?? `Injected fault: ${fault.status}`)
  return next()
}
