/**
 * A rule's level is its provenance. Every rule — the server suite's, certify-client's and the
 * connector's — quotes what it enforces; a MUST rule quotes the service document verbatim
 * (whitespace aside), a SHOULD rule says what of it is inferred. The quotes are checked against the
 * document itself (test/support/spec-document.ts finds it), so a rule cannot claim words the spec lacks.
 */
import { describe, expect, it } from 'vitest'
import { catalogue } from '../conformance/catalogue.ts'
import { clientRules } from '../conformance/certify-client/rules/index.ts'
import { specQuotes, type Provenance } from '../conformance/provenance.ts'
import { connectorRules } from '../conformance/rules/connector/run.ts'
import { normaliseWhitespace, specText } from './support/spec-document.ts'

type Graded = Provenance & { id: string; level: 'MUST' | 'SHOULD' }
const SUITES: Array<[string, readonly Graded[]]> = [
  ['conformance', catalogue],
  ['certify-client', clientRules],
  ['connector', connectorRules],
]

describe('rules quote the service document', () => {
  const spec = specText()

  for (const [suite, rules] of SUITES) {
    describe(suite, () => {
      it.each(rules.map((r) => [r.id, r] as const))('%s: level matches provenance', (_id, rule) => {
        const quotes = specQuotes(rule)
        const missing = quotes.filter((q) => !spec.includes(normaliseWhitespace(q)))
        // Every sentence attributed to the document is in it, at any level.
        expect(missing).toEqual([])
        expect(rule.quote.length).toBeGreaterThan(0)
        if (rule.level === 'MUST') {
          // A MUST rule enforces the document's own words and nothing of ours.
          expect(quotes.length).toBeGreaterThan(0)
          expect(rule.inferred).toBeUndefined()
        } else {
          // A SHOULD rule says what of it is our inference, in a sentence.
          expect(rule.inferred).toMatch(/\w+ \w+ \w+/)
        }
      })
    })
  }

  it('finds a sentence that is not in the document (the check can fail)', () => {
    expect(spec.includes(normaliseWhitespace('replay returns the original response identically'))).toBe(true)
    expect(spec.includes(normaliseWhitespace('retry at least one second after a 409'))).toBe(false)
  })
})
