/**
 * The proxy's client grading folds certify-client's rules window by window so its memory stays flat
 * (proxy/client-grading.ts). Shown here with windows far smaller than the proxy's: for the partner
 * client and each client breaking one rule, under certify-client's strict schedule, the folded
 * outcome of every rule is the one certify-client gives the whole recording, with as many findings
 * (ratelimit.pace: its worst second once per window, not once per session), and the requests held
 * never exceed the window and its context. A closed window is graded in steps (`work`, between the
 * proxy's requests): one step after each request gives the very report that grading each window at
 * once gives.
 */
import { describe, expect, it, vi } from 'vitest'
import { loadContract } from '../openapi/index.ts'
import { gradeRecording } from '../conformance/certify-client/grade.ts'
import { PROFILES } from '../conformance/certify-client/profile.ts'
import { clientRules } from '../conformance/certify-client/rules/index.ts'
import { startCertification, type Recording } from '../conformance/certify-client/session.ts'
import { createServer } from '../mock/server.ts'
import { createClientGrader } from '../proxy/client-grading.ts'
import { runIntegration } from './certify-client/partner-client.ts'

const contract = loadContract()

async function recordingOf(breaks: string | undefined): Promise<Recording> {
  const mock = createServer({ stateOptions: { seed: 42, scale: 'small', now: '2026-11-20T12:00:00Z', today: '2026-11-20' } })
  const url = await mock.listen(0, '127.0.0.1')
  try {
    const { state } = mock
    const session = await startCertification(state, PROFILES.strict, 7)
    await runIntegration({ baseUrl: url, apiKey: 'demo-key', shopId: state.world.shops[0]!.shop_id, sleep: async (ms) => state.clock.advance(ms), now: () => state.clock.nowMs(), breaks })
    return session.finish()
  } finally {
    await mock.close()
  }
}

const failureCount = (failures: Array<{ message: string }>) => failures.reduce((n, f) => n + (Number(/… and (\d+) more/.exec(f.message)?.[1] ?? 0) || (f.message.startsWith('… and') ? 0 : 1)), 0)

describe('proxy: the client grading in windows', () => {
  for (const breaks of [undefined, ...clientRules.map((r) => r.id)]) {
    it(`${breaks ?? 'the partner client'}: every rule's outcome and finding count as certify-client grades the whole recording`, { timeout: 60_000 }, async () => {
      const recording = await recordingOf(breaks)
      const whole = gradeRecording(recording, { contract })
      const { requests, ...meta } = recording
      const window = 8
      const contextMax = 12
      const grader = createClientGrader(contract, () => meta, { window, contextMax })
      let most = 0
      for (const r of requests) {
        grader.add(r)
        most = Math.max(most, grader.held())
      }
      expect(requests.length).toBeGreaterThan(3 * window)
      expect(most).toBeLessThanOrEqual(contextMax + window + contextMax + window)
      expect(most).toBeLessThan(requests.length)
      // The same requests, the closed windows graded one step after each request (a clock that moves one unit per reading: `work` runs exactly one step).
      const stepped = createClientGrader(contract, () => meta, { window, contextMax })
      let tick = 0
      let partway = 0
      const clock = vi.spyOn(performance, 'now').mockImplementation(() => ++tick)
      try {
        for (const r of requests) {
          stepped.add(r)
          if (stepped.work(tick + 1.5)) partway++
        }
      } finally {
        clock.mockRestore()
      }
      expect(partway).toBeGreaterThan(window)
      const folded = grader.report(meta)
      expect(stepped.report(meta)).toEqual(folded)
      expect(folded.outcomes.map((o) => [o.id, o.status])).toEqual(whole.outcomes.map((o) => [o.id, o.status]))
      // ratelimit.pace names the worst second per key and shop: once per session graded whole, once per window folded.
      const counts = (report: typeof whole) => Object.fromEntries(report.outcomes.map((o) => [o.id, o.id === 'ratelimit.pace' ? Math.min(1, failureCount(o.failures)) : failureCount(o.failures)]))
      expect(counts(folded)).toEqual(counts(whole))
      expect([folded.verdict, folded.summary.requests, folded.operations]).toEqual([whole.verdict, whole.summary.requests, whole.operations])
      // Every request a finding names is in the report.
      const listed = new Set(folded.requests.map((r) => r.seq))
      for (const o of folded.outcomes) for (const f of o.failures) for (const seq of f.requests.slice(0, 12)) expect(listed.has(seq)).toBe(true)
    })
  }
})
