/**
 * Rules that cannot pass against today's mock because an area they read has not landed in the
 * mock yet: the mock answers those operations 501 "Not implemented in the mock yet". The
 * end-to-end test reports such rules as skipped, naming the missing operations, instead of
 * failing; as the mock's areas land they pass on their own. A rule failing for any other reason
 * fails the test; a rule listed in `knownOnMock` is skipped with the documented reason.
 */
import type { RuleOutcome } from '../types.ts'

/**
 * Rules that did not pass against the mock on 2026-11-21 22:10 UTC, while its areas were landing,
 * with the reason. Such a rule still runs: it passes when the mock is right, and is reported
 * skipped with this reason when it fails. Remove an entry once its area has landed.
 */
export const knownOnMock: Record<string, string> = {}

/** Why a failed outcome is pending on the mock, or undefined when it is a real failure. */
export function pendingReason(outcome: RuleOutcome): string | undefined {
  if (outcome.status === 'pass') return undefined
  if (knownOnMock[outcome.id]) return knownOnMock[outcome.id]
  const missing = [...new Set(outcome.exchanges.filter((e) => e.status === 501).map((e) => e.operationId))]
  if (outcome.id === 'contract.responses-valid') {
    // Judges the whole run: pending while any response of the run is a 501 of a missing area.
    const real = outcome.failures.filter((f) => f.exchange?.status !== 501)
    return real.length ? undefined : `responses of areas not implemented yet (${outcome.failures.length} findings, all 501)`
  }
  return missing.length ? `the mock does not implement ${missing.join(', ')} yet` : undefined
}
