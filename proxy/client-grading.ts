/**
 * The client's side of the proxy's grading with memory that stays flat however long the proxy runs:
 * certify-client's own rules (unchanged: one source of truth) run over windows of the traffic, and
 * each rule's outcome is folded as windows close. A window judges its own requests with context on
 * both sides (the requests of the CONTEXT_MS before and after, at most CONTEXT_MAX each side), so a
 * retry, a re-read or a pause that follows its request within that horizon is seen; a finding counts
 * in the window that owns its first request, so none is counted twice. Only what a report shows is
 * kept: per rule whether it applied, was exercised, its first findings (KEEP) and their count, its
 * evidence (EVIDENCE), and the requests those name.
 *
 * A run shorter than one window (WINDOW requests) is graded in one piece, exactly as certify-client
 * grades a recording.
 *
 * A window that closes is graded in steps (certify-client's outcomeSteps: the requests read, then one
 * rule at a time), which `work` runs while the proxy has time for it (proxy/backlog.ts), so no single
 * call holds the proxy's loop for a whole window (54-243 ms on the stats answers). Exact: each step is
 * the same computation on the window's own requests and the recording's meta, both fixed when the
 * window closed; windows are folded in the order they closed; and any report first runs what is left
 * (test/proxy-client-grading.test.ts: the same report whether windows are graded at once or in steps).
 *
 * Inferred: a situation whose follow-up comes later than the horizon (a retry more than CONTEXT_MS
 * later under heavy traffic) is judged without it; the report says so.
 */
import type { Contract } from '../openapi/index.ts'
import type { RecordedRequest } from '../mock/pipeline/certification.ts'
import { gradeRecording, outcomeSteps, type ClientReport, type ClientRuleOutcome } from '../conformance/certify-client/grade.ts'
import { clientRules } from '../conformance/certify-client/rules/index.ts'
import type { Recording } from '../conformance/certify-client/session.ts'
import type { ClientFailure, ClientRule, Grade } from '../conformance/certify-client/types.ts'
import { withEveryFinding } from '../conformance/certify-client/support.ts'

/** Requests a window owns. */
export const WINDOW = 2_000
/** The horizon around a window: the requests of this span before and after it... */
export const CONTEXT_MS = 120_000
/** ...but no more than this many on each side (memory stays bounded under any rate). */
export const CONTEXT_MAX = 1_000
const KEEP = 20
const EVIDENCE = 50
/** Closed windows whose grading may wait for `work`; past it, the oldest is finished at once (each holds its window's requests). */
const CLOSING_MAX = 2

interface Folded {
  applies: boolean
  exercised: boolean
  reason?: string
  failures: ClientFailure[]
  failureCount: number
  evidence: Set<number>
}

export interface ClientGrader {
  add(request: RecordedRequest): void
  /** The client report of the traffic so far (nothing is closed by asking). */
  report(recording: Omit<Recording, 'requests'>): ClientReport
  /** The requests the report names (its findings and evidence), by seq. */
  kept(): Map<number, RecordedRequest>
  /** Requests held now (for a test of the bound). */
  held(): number
  /** Runs the closed windows' grading, a step at a time, until `until` (performance.now()); true when some is left. */
  work(until: number): boolean
}

/** The operation a certificate names for `operationId`: its canonical one's permission (aliases followed), as certify-client names it. */
function permissionOf(contract: Contract, operationId: string): string {
  let op = contract.byId.get(operationId)
  for (let hops = 0; op?.aliasOf && contract.byId.has(op.aliasOf) && hops < 5; hops++) op = contract.byId.get(op.aliasOf)
  return op?.permission ?? operationId
}

/** `meta`: the recording's profile, seed and start (what the rules may read besides the requests). */
export function createClientGrader(contract: Contract, meta: () => Omit<Recording, 'requests'>, { rules = clientRules, window = WINDOW, contextMs = CONTEXT_MS, contextMax = CONTEXT_MAX }: { rules?: readonly ClientRule[]; window?: number; contextMs?: number; contextMax?: number } = {}): ClientGrader {
  /** Requests not yet owned by a closed window, and the judged ones kept as context. */
  let buffer: RecordedRequest[] = []
  const judged = new Set<number>()
  const folded = new Map<string, Folded>(rules.map((rule) => [rule.id, { applies: false, exercised: false, failures: [], failureCount: 0, evidence: new Set() }]))
  const keptRequests = new Map<number, RecordedRequest>()
  const operations = new Set<string>()
  const situations: Record<string, number[]> = {}
  let count = 0
  let windows = 0

  /** Closed windows being graded, oldest first: their steps, requests and the requests they own. */
  const closing: Array<{ steps: ReturnType<typeof windowSteps>; requests: RecordedRequest[]; own: Set<number> }> = []

  /** The rules' outcomes on `requests`, in steps (run with every finding listed: the fold counts them). Only the outcomes are folded, so the report around them (its contract digest alone is 8-11 ms) is not built per window. */
  const windowSteps = (requests: RecordedRequest[], meta: Omit<Recording, 'requests'>) => outcomeSteps({ ...meta, requests }, { contract, rules: [...rules] })

  /** One step of the oldest closed window; folded into the outcomes when it is graded. */
  function stepOldest(): void {
    const oldest = closing[0]!
    const step = withEveryFinding(() => oldest.steps.next())
    if (!step.done) return
    closing.shift()
    fold(step.value.outcomes, oldest.requests, oldest.own, folded)
  }

  /** Grades `requests` at once (the last window, for a report), counting the findings whose first request is in `own`. */
  function gradeWindow(requests: RecordedRequest[], own: Set<number>, into: Map<string, Folded>, meta: Omit<Recording, 'requests'>): ClientRuleOutcome[] {
    const steps = windowSteps(requests, meta)
    for (;;) {
      const step = withEveryFinding(() => steps.next())
      if (step.done) return fold(step.value.outcomes, requests, own, into, true)
    }
  }

  /** Folds a window's outcomes into `into`: the findings whose first request it owns, its evidence. */
  function fold(outcomes: ClientRuleOutcome[], requests: RecordedRequest[], own: Set<number>, into: Map<string, Folded>, last = false): ClientRuleOutcome[] {
    const bySeq = new Map(requests.map((r) => [r.seq, r]))
    for (const outcome of outcomes) {
      const f = into.get(outcome.id)!
      if (outcome.status === 'not applicable') continue
      f.applies = true
      if (outcome.status === 'not exercised') {
        f.reason ??= outcome.reason
        continue
      }
      f.exercised = true
      for (const failure of outcome.failures) {
        // A finding counts in the window owning its first request (one naming no request: in the last window).
        let anchor = Infinity
        for (const seq of failure.requests) anchor = Math.min(anchor, seq)
        if (anchor === Infinity ? !last : !own.has(anchor)) continue
        f.failureCount++
        if (f.failures.length < KEEP) {
          f.failures.push(failure)
          // The report's request table shows a finding's first 12 requests.
          for (const seq of failure.requests.slice(0, 12)) keptRequests.set(seq, bySeq.get(seq)!)
        }
      }
      for (const seq of outcome.evidence) {
        if (f.evidence.size >= EVIDENCE || !own.has(seq)) continue
        f.evidence.add(seq)
        keptRequests.set(seq, bySeq.get(seq)!)
      }
    }
    return outcomes
  }

  const sorted = () => buffer.sort((a, b) => a.seq - b.seq)

  /** Closes the oldest window when the requests after it cover the horizon. */
  function maybeClose(): void {
    while (closeOne());
  }

  function closeOne(): boolean {
    const unjudged = buffer.filter((r) => !judged.has(r.seq))
    if (unjudged.length < window + 1) return false
    sorted()
    const pending = buffer.filter((r) => !judged.has(r.seq))
    const own = pending.slice(0, window)
    const after = pending.slice(window)
    const last = own[own.length - 1]!
    if (after.length < contextMax && after[after.length - 1]!.atMs - last.atMs < contextMs) return false
    windows++
    // Graded by `work`, a step at a time; the array is the window's own from now on (buffer is replaced below).
    closing.push({ steps: windowSteps(buffer, meta()), requests: buffer, own: new Set(own.map((r) => r.seq)) })
    while (closing.length > CLOSING_MAX) stepOldest()
    for (const r of own) judged.add(r.seq)
    // Keep as context for the next window the judged requests of the horizon before it.
    const judgedKept = buffer.filter((r) => judged.has(r.seq) && r.atMs >= last.atMs - contextMs).slice(-contextMax)
    const keep = new Set(judgedKept.map((r) => r.seq))
    for (const r of buffer) if (judged.has(r.seq) && !keep.has(r.seq)) judged.delete(r.seq)
    buffer = [...judgedKept, ...after]
    return true
  }

  return {
    add(request) {
      count++
      buffer.push(request)
      operations.add(request.operationId)
      if (request.injected) (situations[request.injected] ??= []).push(request.seq)
      // Windows close every window requests at most (the check itself is not per request).
      if (count % Math.min(1000, window) === 0) maybeClose()
    },
    work(until) {
      while (closing.length && performance.now() < until) stepOldest()
      return closing.length > 0
    },
    report(meta) {
      while (closing.length) stepOldest()
      sorted()
      // Traffic shorter than a window: graded in one piece, as certify-client grades a recording.
      if (!windows) return gradeRecording({ ...meta, requests: buffer }, { contract, rules: [...rules] })
      const final = new Map([...folded].map(([id, f]) => [id, { ...f, failures: [...f.failures], evidence: new Set(f.evidence) }]))
      const own = new Set(buffer.filter((r) => !judged.has(r.seq)).map((r) => r.seq))
      const last = gradeWindow(buffer, own, final, meta)
      // Several windows: the report of the whole traffic from the folded outcomes.
      const outcomes = last.map((o) => {
        const f = final.get(o.id)!
        const base = { ...o, failures: [] as ClientFailure[], evidence: [] as number[] }
        if (!f.applies) return { ...base, status: 'not applicable' as const }
        if (!f.exercised) return { ...base, status: 'not exercised' as const, reason: f.reason }
        const listed = f.failureCount > f.failures.length ? [...f.failures, { message: `… and ${f.failureCount - f.failures.length} more like these`, expected: '', received: '', requests: [] }] : f.failures
        return { ...base, status: f.failureCount ? ('fail' as const) : ('pass' as const), reason: undefined, failures: listed, evidence: [...f.evidence].sort((a, b) => a - b) }
      })
      const byId = new Map(outcomes.map((o) => [o.id, o]))
      const asRules: ClientRule[] = rules.map((rule) => {
        const o = byId.get(rule.id)!
        return { ...rule, appliesTo: () => o.status !== 'not applicable', grade: (): Grade => (o.status === 'not exercised' ? { exercised: false, reason: o.reason ?? '' } : { exercised: true, failures: o.failures, evidence: o.evidence }) }
      })
      // The verdict and summary as certify-client computes them, from the folded outcomes.
      const whole = gradeRecording({ ...meta, requests: buffer.length ? buffer : [...keptRequests.values()] }, { contract, rules: asRules })
      whole.operations = [...new Set([...operations].map((id) => permissionOf(contract, id)))].sort()
      whole.situations = situations
      whole.summary.requests = count
      whole.requests = [...keptRequests.values(), ...buffer.filter((r) => !keptRequests.has(r.seq))].sort((a, b) => a.seq - b.seq)
      return whole
    },
    kept: () => keptRequests,
    held: () => buffer.length,
  }
}
