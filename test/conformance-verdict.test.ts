/**
 * Honest verdicts (issue 14): CERTIFIED only when every MUST rule of the catalogue ran to its end and
 * passed and every operation was exercised; NOT CERTIFIED when a MUST rule failed; PASSED, NOT
 * CERTIFIED naming what a partial run left out. The HTML certificate says the same, and every in-page
 * link lands on an element; JUnit lists the rules that did not run as skipped, with the reason.
 */
import { describe, expect, it } from 'vitest'
import { loadContract } from '../openapi/index.ts'
import { buildReport } from '../conformance/report.ts'
import { htmlReport } from '../conformance/reporters/html.ts'
import { junitReport } from '../conformance/reporters/junit.ts'
import type { Rule, RuleOutcome, RunOptions } from '../conformance/types.ts'

const contract = loadContract()
const allOperations = contract.operations.map((o) => o.operationId)
const options: RunOptions = { baseUrl: 'https://staging.example.com', apiKey: 'k', shopId: 's', allowWrites: true, rules: [], rps: 8, haloBoundSeconds: 60, ruleTimeoutSeconds: 120 }
const rule = (id: string, level: 'MUST' | 'SHOULD' = 'MUST'): Rule => ({ id, title: `${id} behaves`, spec: 'Errors', level, writes: false, operations: [], run: async () => {} }) as unknown as Rule
const RULES = [rule('auth.missing-key'), rule('auth.enterprise-refused'), rule('auth.limited-key-scope'), rule('sorting.cases', 'SHOULD')]

function outcome(id: string, status: RuleOutcome['status'], extra: Partial<RuleOutcome> = {}): RuleOutcome {
  const r = RULES.find((x) => x.id === id)!
  return { id, title: r.title, spec: r.spec, level: r.level, writes: false, area: id.split('.')[0]!, status, failures: [], warnings: [], operations: [], exchanges: [], durationMs: 5, ...extra }
}

const everything = (o: RuleOutcome[]) => [...o.slice(0, -1), { ...o[o.length - 1]!, operations: allOperations }]

describe('conformance verdicts (issue 14: honest verdicts)', () => {
  it('CERTIFIED: every MUST rule ran and passed and every operation was exercised; exit 0', () => {
    const report = buildReport(contract, options, everything(RULES.map((r) => outcome(r.id, 'pass'))), [], new Date(), RULES)
    expect(report.verdict).toBe('certified')
    expect(report.complete).toBe(true)
    expect(report.verdictText).toBe(`CERTIFIED: every MUST rule passed, ${allOperations.length}/${allOperations.length} operations exercised`)
    expect(report.exitCode).toBe(0)
  })

  it('PASSED, NOT CERTIFIED: MUST rules skipped for missing keys and one operation exercised; exit 0, or 1 with --require-certified', () => {
    const outcomes = [
      outcome('auth.missing-key', 'pass', { operations: ['getShopSps'] }),
      outcome('auth.enterprise-refused', 'skip', { reason: 'no --enterprise-api-key' }),
      outcome('auth.limited-key-scope', 'skip', { reason: 'no --limited-api-key' }),
      outcome('sorting.cases', 'pass'),
    ]
    const report = buildReport(contract, options, outcomes, [], new Date(), RULES)
    expect(report.verdict).toBe('passed, not certified')
    expect(report.verdictText).toBe(`PASSED, NOT CERTIFIED: 2 MUST rules not run (no --enterprise-api-key; no --limited-api-key), 1/${allOperations.length} operations`)
    expect(report.exitCode).toBe(0)
    expect(buildReport(contract, { ...options, requireCertified: true }, outcomes, [], new Date(), RULES).exitCode).toBe(1)
  })

  it('CERTIFIED naming the MUST rules not checkable against the target (paths the spec does not show, not served): never a silent pass', () => {
    const reason = 'not checkable against this target: the target serves none of the Enterprise paths the contract inferred (the spec shows none)'
    const outcomes = everything(RULES.map((r) => (r.id === 'auth.enterprise-refused' ? outcome(r.id, 'skip', { reason, notCheckable: true }) : outcome(r.id, 'pass'))))
    const report = buildReport(contract, options, outcomes, [], new Date(), RULES)
    expect(report.verdict).toBe('certified')
    expect(report.incomplete.mustNotRun).toEqual([])
    expect(report.notCheckable).toEqual([{ id: 'auth.enterprise-refused', reason: 'the target serves none of the Enterprise paths the contract inferred (the spec shows none)' }])
    expect(report.verdictText).toBe(
      `CERTIFIED: every checkable MUST rule passed, ${allOperations.length}/${allOperations.length} operations exercised; 1 MUST rule not checkable against this target (auth.enterprise-refused: the target serves none of the Enterprise paths the contract inferred (the spec shows none))`,
    )
    // The same skip without the mark is a rule not run: the run is partial.
    const plain = buildReport(contract, options, outcomes.map((o) => ({ ...o, notCheckable: undefined })), [], new Date(), RULES)
    expect(plain.verdict).toBe('passed, not certified')
    // JUnit and HTML show it as skipped, with its reason.
    expect(junitReport(report)).toContain(`<skipped message="${reason.replace(/"/g, '&quot;')}"/>`)
    expect(htmlReport(report)).toContain('not checkable against this target')
  })

  it('PASSED, NOT CERTIFIED: every rule passed but operations were left unexercised', () => {
    const report = buildReport(contract, options, RULES.map((r) => outcome(r.id, 'pass')), [], new Date(), RULES)
    expect(report.verdictText).toBe(`PASSED, NOT CERTIFIED: 0/${allOperations.length} operations`)
  })

  it('NOT CERTIFIED when a MUST rule failed, whatever else ran; a failed SHOULD rule alone does not fail it', () => {
    const failed = buildReport(contract, options, everything([outcome('auth.missing-key', 'fail'), ...RULES.slice(1).map((r) => outcome(r.id, 'pass'))]), [], new Date(), RULES)
    expect(failed.verdict).toBe('not certified')
    expect(failed.verdictText).toBe('NOT CERTIFIED: 1 MUST rule failed')
    expect(failed.exitCode).toBe(1)
    const should = buildReport(contract, options, everything([...RULES.slice(0, 3).map((r) => outcome(r.id, 'pass')), outcome('sorting.cases', 'fail')]), [], new Date(), RULES)
    expect(should.verdict).toBe('certified')
  })

  it('rules not selected by --rules are MUST rules not run, and JUnit lists them skipped with the reason', () => {
    const report = buildReport(contract, { ...options, rules: ['auth.missing-key'] }, [outcome('auth.missing-key', 'pass')], [], new Date(), RULES)
    expect(report.incomplete.mustNotRun).toEqual([
      { id: 'auth.enterprise-refused', reason: 'left out by --rules' },
      { id: 'auth.limited-key-scope', reason: 'left out by --rules' },
    ])
    const junit = junitReport(report)
    expect(junit).toContain('<testcase classname="conformance.auth" name="auth.enterprise-refused [MUST]" time="0.000">\n      <skipped message="left out by --rules"/>')
    expect(junit).toContain('<!-- PASSED, NOT CERTIFIED: 2 MUST rules not run')
  })

  it('the HTML certificate: the badge says the verdict, every in-page link lands on an element, passing rules carry collapsed evidence', () => {
    const exchange = { seq: 1, rule: 'auth.missing-key', operationId: 'getShopSps', method: 'GET', url: 'https://staging.example.com/shop/sps', requestHeaders: { 'x-api-key': '<redacted>' }, status: 401, responseHeaders: { 'content-type': 'application/json' }, responseExcerpt: '{"error":"Missing API key"}', durationMs: 3, curl: 'curl -sS https://staging.example.com/shop/sps', findings: [] }
    const outcomes = [outcome('auth.missing-key', 'pass', { exchanges: [exchange as never], operations: ['getShopSps'] }), outcome('auth.enterprise-refused', 'fail', { failures: [{ rule: 'auth.enterprise-refused', operation: 'getShopSps', message: 'wrong status', expected: '403', received: '200' }] }), outcome('auth.limited-key-scope', 'skip', { reason: 'no --limited-api-key' })]
    for (const report of [buildReport(contract, options, outcomes, [], new Date(), RULES), buildReport(contract, options, everything(RULES.map((r) => outcome(r.id, 'pass'))), [], new Date(), RULES)]) {
      const html = htmlReport(report)
      const ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]))
      const targets = [...html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!)
      expect(targets.length).toBeGreaterThan(5)
      expect(targets.filter((t) => !ids.has(t))).toEqual([])
      expect(html).toContain(`<b>${report.verdictText.split(': ')[0]}</b>`)
      expect(html).toContain(`SHA-256 <code>${report.contractSha256}</code>`)
      expect(html).not.toMatch(/<script|<link|src=|https?:\/\/(?!staging\.example\.com)[a-z]/i)
    }
    const html = htmlReport(buildReport(contract, options, outcomes, [], new Date(), RULES))
    expect(html).toMatch(/<section id="rule-auth\.missing-key" class="rule"><details><summary>/)
    expect(html).toContain('Evidence: 1 request behind this outcome')
    expect(html).toMatch(/<section id="rule-auth\.enterprise-refused" class="rule"><details open>/)
    expect(html).toContain('class="badge not-certified"')
  })
})
