import type { Rule } from '../../types.ts'

export const responsesValid: Rule = {
  id: 'contract.responses-valid',
  title: 'Every response of the run has a documented status, a JSON content type and a body valid against the documented schema',
  spec: 'OpenAPI document (every operation); Errors: error bodies are JSON {error}',
  level: 'MUST',
  quote: ['A machine-readable OpenAPI 3.1 description exists', 'Error bodies are JSON `{error: <message string>}`.'],
  writes: false,
  operations: [],
  async run(t) {
    // Judges what the other rules received; this rule sends nothing itself.
    const seen = new Set<string>()
    for (const exchange of t.history()) {
      for (const finding of exchange.schema) {
        const key = `${finding.operationId} ${finding.status} ${finding.message}`
        if (seen.has(key)) continue
        seen.add(key)
        const failure = { operation: `${exchange.method} ${finding.operationId}`, message: finding.message, expected: 'a response as the contract documents it', received: `HTTP ${exchange.status} ${exchange.responseExcerpt.slice(0, 300)}`, exchange }
        if (finding.severity === 'error') t.fail(failure)
        else t.warn(failure)
      }
    }
  },
}
