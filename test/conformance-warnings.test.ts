/**
 * Warnings are counted the same everywhere (issue 25): a SHOULD rule not met is a warning (each of its
 * findings), and so is each warning a rule notes; the terminal's summary, report.json's
 * summary.warnings, JUnit's `warning:` lines and the HTML's per-rule counts all give the same number,
 * and the terminal shows every rule whose warnings it counts.
 */
import { describe, expect, it } from 'vitest'
import { loadContract } from '../openapi/index.ts'
import { buildReport } from '../conformance/report.ts'
import { htmlReport } from '../conformance/reporters/html.ts'
import { jsonReport } from '../conformance/reporters/json.ts'
import { junitReport } from '../conformance/reporters/junit.ts'
import { createTerminalReporter } from '../conformance/reporters/terminal.ts'
import type { Failure, Rule, RuleOutcome, RunOptions } from '../conformance/types.ts'

const contract = loadContract()
const options: RunOptions = { baseUrl: 'https://staging.example.com', apiKey: 'k', shopId: 's', allowWrites: true, rules: [], rps: 8, haloBoundSeconds: 60, ruleTimeoutSeconds: 120 }
const rule = (id: string, level: 'MUST' | 'SHOULD'): Rule => ({ id, title: `${id} behaves`, spec: 'Errors', level, writes: false, run: async () => {} }) as unknown as Rule
const finding = (rule: string, message: string): Failure => ({ rule, operation: 'GET /shop/sps', message, expected: 'x', received: 'y' })
const outcome = (r: Rule, status: RuleOutcome['status'], extra: Partial<RuleOutcome> = {}): RuleOutcome => ({ id: r.id, title: r.title, spec: r.spec, level: r.level, writes: false, area: r.id.split('.')[0]!, status, failures: [], warnings: [], operations: [], exchanges: [], durationMs: 5, ...extra })

const RULES = [rule('auth.missing-key', 'SHOULD'), rule('ratelimit.burst-429', 'MUST'), rule('sorting.nulls-last', 'MUST'), rule('halo.poll', 'SHOULD')]

describe('warnings counted the same in the terminal, JSON, JUnit and HTML (issue 25)', () => {
  it.each([
    ['a SHOULD rule not met (2 findings), a MUST rule passing with 1 warning, a SHOULD rule erroring', [
      outcome(RULES[0]!, 'fail', { failures: [finding('auth.missing-key', 'no 401'), finding('auth.missing-key', 'no body')] }),
      outcome(RULES[1]!, 'pass', { warnings: [finding('ratelimit.burst-429', '429 carries a Retry-After header (inferred)')] }),
      outcome(RULES[2]!, 'pass'),
      outcome(RULES[3]!, 'error', { reason: 'timed out' }),
    ], 4],
    ['a SHOULD rule not met alone (the case of the issue: WARN printed, 0 warnings said)', [outcome(RULES[0]!, 'fail', { failures: [finding('auth.missing-key', 'no 401')] }), outcome(RULES[2]!, 'pass')], 1],
    ['nothing to warn about', [outcome(RULES[2]!, 'pass')], 0],
  ] as const)('%s', (_label, outcomes, expected) => {
    const report = buildReport(contract, options, [...outcomes], [], new Date(), RULES)
    let terminal = ''
    const reporter = createTerminalReporter({ write: (text) => (terminal += text), color: false })
    reporter.start(options.baseUrl, outcomes.length)
    for (const o of outcomes) reporter.outcome(o)
    reporter.summary(report, [])

    expect(report.summary.warnings).toBe(expected)
    expect(JSON.parse(jsonReport(report)).summary.warnings).toBe(expected)
    expect(terminal).toMatch(new RegExp(`; ${expected} warnings?( on \\d+ rules?)?\\n`))
    const junit = junitReport(report)
    expect(junit.match(/(^|<system-out>)warning: /gm)?.length ?? 0).toBe(expected)
    expect(junit).toContain(`; ${expected} warning`)
    const html = htmlReport(report)
    const perRule = [...html.matchAll(/<small>\((\d+) warnings?\)<\/small>/g)].reduce((n, m) => n + Number(m[1]), 0)
    expect(perRule).toBe(expected)
    expect(html).toContain(`${expected} warnings;`)
    // Every rule whose warnings are counted is marked on the terminal (WARN, or its warning lines).
    for (const o of outcomes.filter((x) => x.warnings.length || (x.level === 'SHOULD' && x.status !== 'pass'))) expect(terminal).toMatch(new RegExp(`(WARN ${o.id}|${o.id}[^\\n]*\\n\\s+warning )`))
  })
})

describe('certify-client\'s terminal: the first finding of a rule and how many more (issue 25)', () => {
  it.each([
    [0, []],
    [1, ['     the first']],
    [3, ['     the first', '     +2 more (report.json, report.html)']],
  ] as const)('%i findings', async (count, shown) => {
    const { outcomeLines } = await import('../conformance/certify-client/cli.ts')
    const failures = Array.from({ length: count }, (_, i) => ({ message: i ? `finding ${i}` : 'the first' }))
    const [text] = outcomeLines({ outcomes: [{ id: 'ratelimit.pace', title: '', spec: '', level: 'MUST', area: 'ratelimit', status: count ? 'fail' : 'pass', failures, evidence: [] } as never] })
    expect(text!.split('\n')).toEqual([`${count ? 'FAIL' : 'PASS'} ratelimit.pace [MUST]`, ...shown])
  })
})
