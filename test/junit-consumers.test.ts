/**
 * The JUnit files as CI systems read them (conformance, certify-client, the proxy's): well-formed XML
 * 1.0 to a strict parser (saxes) whatever a finding quotes, and the shape of the JUnit schema the
 * Jenkins xUnit plugin validates reports against (its `junit-10` model: which attributes and children
 * each element may have; the plugin refuses a file outside it). Each free-text field of a report gets
 * generated text with what a server's answer or a client's body may carry: controls, lone surrogates,
 * U+FFFE and U+FFFF, `--` and `]]>`, quotes and markup; the parsed text is the text given, less only the
 * characters XML 1.0 cannot hold.
 */
import fc from 'fast-check'
import { SaxesParser } from 'saxes'
import { describe, expect, it } from 'vitest'
import { loadContract } from '../openapi/index.ts'
import { buildReport } from '../conformance/report.ts'
import { junitReport } from '../conformance/reporters/junit.ts'
import { clientJunit } from '../conformance/certify-client/reporters.ts'
import type { ClientReport, ClientRuleOutcome } from '../conformance/certify-client/grade.ts'
import type { Rule, RuleOutcome, RunOptions } from '../conformance/types.ts'
import { proxyJunit } from '../proxy/reporters.ts'
import type { ProxyReport } from '../proxy/grade.ts'

const contract = loadContract()

/** The elements of the model, their attributes (required ones first, marked), and the children they may hold. */
const MODEL: Record<string, { required: string[]; optional: string[]; children: string[] }> = {
  testsuites: { required: [], optional: ['name', 'time', 'tests', 'failures', 'errors'], children: ['testsuite'] },
  testsuite: { required: ['name', 'tests', 'failures', 'errors'], optional: ['group', 'time', 'skipped', 'timestamp', 'hostname', 'id', 'package', 'file', 'log', 'url'], children: ['testsuite', 'properties', 'testcase', 'system-out', 'system-err'] },
  testcase: { required: ['name'], optional: ['time', 'classname', 'group'], children: ['skipped', 'error', 'failure', 'system-out', 'system-err'] },
  failure: { required: [], optional: ['type', 'message'], children: [] },
  error: { required: [], optional: ['type', 'message'], children: [] },
  skipped: { required: [], optional: ['type', 'message'], children: [] },
  'system-out': { required: [], optional: [], children: [] },
  'system-err': { required: [], optional: [], children: [] },
}
/** The model's time: digits with an optional fraction (Surefire's pattern, thousands commas aside). */
const TIME = /^\d*(\.\d*)?$/

interface Parsed {
  problems: string[]
  /** Every attribute value and text node, as the parser read them. */
  texts: string[]
}

function readJunit(xml: string): Parsed {
  const problems: string[] = []
  const texts: string[] = []
  const open: string[] = []
  const parser = new SaxesParser({ xmlns: false, position: true })
  parser.on('error', (error) => problems.push(`not well-formed XML: ${error.message}`))
  parser.on('opentag', (tag) => {
    const model = MODEL[tag.name]
    const parent = open.at(-1)
    if (!model) problems.push(`<${tag.name}> is not an element of the model`)
    else {
      if (parent === undefined ? tag.name !== 'testsuites' : !MODEL[parent]?.children.includes(tag.name)) problems.push(`<${tag.name}> inside <${parent ?? 'the document'}>`)
      const names = Object.keys(tag.attributes)
      for (const name of names) if (!model.required.includes(name) && !model.optional.includes(name)) problems.push(`<${tag.name}> has attribute ${name}, which the model does not allow`)
      for (const name of model.required) if (!names.includes(name)) problems.push(`<${tag.name}> lacks attribute ${name}`)
      const time = tag.attributes.time as string | undefined
      if (time !== undefined && !TIME.test(time)) problems.push(`<${tag.name}> time="${time}"`)
    }
    texts.push(...Object.values(tag.attributes as Record<string, string>))
    open.push(tag.name)
  })
  parser.on('closetag', () => void open.pop())
  parser.on('text', (text) => {
    if (text.trim()) texts.push(text)
  })
  parser.write(xml).close()
  return { problems, texts }
}

/** Text a finding may quote: mostly printable, with what XML cannot hold and what breaks markup mixed in. */
const hostile = fc
  .array(
    fc.oneof(
      { arbitrary: fc.string({ unit: 'binary', maxLength: 6 }), weight: 4 },
      { arbitrary: fc.constantFrom('\u0000', '\u0001', '\u000b', '\u001f', '\ud800', '\udfff', '\ufffe', '\uffff', '--', '---', '-', ']]>', '<!--', '-->', '&', '"', "'", '<a>', '\r\n', '\t', '\u{1f600}', '\u0085'), weight: 3 },
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(''))

/** What a parser reads back of `text` in an element: its XML 1.0 characters (the Char production), line ends as LF (XML's end-of-line handling). */
const kept = (text: string) => text.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '').replace(/\r\n?/g, '\n')

function conformanceReport(t: string): ReturnType<typeof buildReport> {
  const options: RunOptions = { baseUrl: `https://staging.example.com/${t}`, apiKey: 'k', shopId: 's', allowWrites: true, rules: [], rps: 8, haloBoundSeconds: 60, ruleTimeoutSeconds: 120 }
  const rules = ['auth.missing-key', 'auth.enterprise-refused', 'sorting.cases'].map((id) => ({ id, title: `${id} ${t}`, spec: t, level: id.startsWith('sorting') ? 'SHOULD' : 'MUST', writes: false, operations: [], run: async () => {} }) as unknown as Rule)
  const outcome = (r: Rule, status: RuleOutcome['status'], extra: Partial<RuleOutcome> = {}): RuleOutcome => ({ id: r.id, title: r.title, spec: r.spec, level: r.level, writes: false, area: r.id.split('.')[0]!, status, failures: [], warnings: [], operations: [], exchanges: [], durationMs: 5, ...extra })
  const failure = { rule: rules[0]!.id, operation: 'getHealth', message: `message ${t}`, expected: `expected ${t}`, received: `received ${t}` }
  const outcomes = [outcome(rules[0]!, 'fail', { failures: [failure] }), outcome(rules[1]!, 'skip', { reason: `reason ${t}` }), outcome(rules[2]!, 'fail', { failures: [failure], warnings: [failure] })]
  return buildReport(contract, options, outcomes, [], new Date('2026-11-27T00:00:00Z'), rules)
}

function clientReport(t: string): ClientReport {
  const outcome = (id: string, level: 'MUST' | 'SHOULD', status: ClientRuleOutcome['status'], extra: Partial<ClientRuleOutcome> = {}) =>
    ({ id, area: id.split('.')[0]!, title: `${id} ${t}`, level, spec: t, scope: t, status, failures: [], evidence: [], ...extra }) as unknown as ClientRuleOutcome
  const failure = { message: `message ${t}`, expected: `expected ${t}`, received: `received ${t}`, requests: [1, 2] }
  const outcomes = [outcome('idempotency.retry-same-key', 'MUST', 'fail', { failures: [failure] }), outcome('ratelimit.retry-429', 'MUST', 'not exercised', { reason: `reason ${t}` }), outcome('ratelimit.retry-after', 'SHOULD', 'fail', { failures: [failure], inferred: t })]
  return {
    profile: `standard ${t}`,
    seed: 7,
    startedAt: '2026-11-27T00:00:00.000Z',
    outcomes,
    runErrors: [`run error ${t}`],
    summary: { rules: 3, passed: 0, failed: 2, notExercised: 1, notApplicable: 0, mustFailed: 1, shouldFailed: 1, requests: 2 },
    verdictText: `NOT CERTIFIED: ${t}`,
  } as unknown as ClientReport
}

const writers: Array<[string, (t: string) => string]> = [
  ['conformance', (t) => junitReport(conformanceReport(t))],
  ['certify-client', (t) => clientJunit(clientReport(t))],
  ['shoptwin proxy', (t) => proxyJunit({ server: conformanceReport(t), client: clientReport(t), upstream: `http://127.0.0.1:4010/${t}`, startedAt: '2026-11-27T00:00:00.000Z', command: { line: `npm run e2e ${t}`, outcome: `the command exited with 3 ${t}`, failed: true } } as unknown as ProxyReport)],
]

describe('JUnit files as CI systems read them', () => {
  it.each(writers)('%s: well-formed XML 1.0 in the JUnit model, every quoted text kept but what XML cannot hold (FUZZ_SEED)', (_name, write) => {
    fc.assert(
      fc.property(hostile, (t) => {
        const xml = write(t)
        const { problems, texts } = readJunit(xml)
        expect(problems).toEqual([])
        // The finding's text reaches the CI system whole: the parsed file holds it, less only what XML 1.0 cannot hold.
        const all = texts.join('\n')
        for (const field of [`message ${t}`, `expected: expected ${t}`, `received: received ${t}`]) expect(all).toContain(kept(field))
      }),
      { seed: Number(process.env.FUZZ_SEED ?? 1), numRuns: Number(process.env.FUZZ_RUNS ?? 60) },
    )
  })

  it('each check finds what it looks for: a control character, an attribute the model lacks, a comment with --', () => {
    expect(readJunit('<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="\u0001"/></testsuite></testsuites>').problems[0]).toMatch(/not well-formed/)
    expect(readJunit('<testsuites skipped="1"><testsuite name="a" tests="0" failures="0" errors="0"/></testsuites>').problems).toEqual(['<testsuites> has attribute skipped, which the model does not allow'])
    expect(readJunit('<testsuites><!-- a -- b --><testsuite name="a" tests="0" failures="0" errors="0"/></testsuites>').problems[0]).toMatch(/not well-formed/)
    expect(readJunit('<testsuites><testsuite name="a" tests="0" failures="0"/></testsuites>').problems).toEqual(['<testsuite> lacks attribute errors'])
    expect(readJunit('<testsuites><testcase name="a"/></testsuites>').problems).toEqual(['<testcase> inside <testsuites>'])
  })
})
