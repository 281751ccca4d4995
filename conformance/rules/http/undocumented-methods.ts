import type { OperationInfo } from '../../../openapi/index.ts'
import { describe } from '../../support.ts'
import type { Reply, Rule, RuleContext } from '../../types.ts'

/** The methods HTTP defines for resources like these; a documented path answers the others it does not take with 405. */
const PROBES = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'] as const
/**
 * A method the service implements nowhere (WebDAV's; common HTTP parsers know the token, so it
 * reaches the application rather than a parser's 400): 405 with Allow, or 501 (RFC 9110 9.1), never another 5xx.
 */
const UNIMPLEMENTED = 'PROPFIND'

/** Whether a reply is the JSON `{error: string}` every error of the service has (spec: Errors). */
function isErrorBody(reply: Reply): boolean {
  return !!reply.json && typeof reply.json === 'object' && typeof reply.json.error === 'string'
}

function check405(t: RuleContext, method: string, path: string, documented: Set<string>, reply: Reply): void {
  const where = { operation: `${method} ${path}`, exchange: reply.exchange }
  if (!t.check(reply.status === 405, { ...where, message: `a method the path does not document got ${reply.status}`, expected: `HTTP 405 with Allow (documented: ${[...documented].join(', ')})`, received: describe(reply) })) return
  const allow = (reply.headers.get('allow') ?? '').split(',').map((m) => m.trim().toUpperCase()).filter(Boolean)
  const missing = [...documented].filter((m) => !allow.includes(m))
  t.check(reply.headers.has('allow') && missing.length === 0 && !allow.includes(method), {
    ...where,
    message: 'the 405 does not list the path\'s methods in Allow',
    expected: `Allow naming ${[...documented].join(', ')} and not ${method} (RFC 9110 15.5.6)`,
    received: reply.headers.has('allow') ? `Allow: ${reply.headers.get('allow')}` : '(no Allow header)',
  })
  t.check(isErrorBody(reply), { ...where, message: 'the 405 body is not {error}', expected: 'JSON {"error": "..."} (spec: Errors)', received: reply.text.slice(0, 200) || '(empty)' })
}

export const undocumentedMethods: Rule = {
  id: 'http.undocumented-methods',
  title: 'A documented path called with a method it does not document answers 405 with Allow and {error}, never a 5xx',
  spec: 'Errors; HTTP itself (RFC 9110 9.1, 15.5.6): the service documentation names only its own methods, so this is inferred',
  level: 'SHOULD',
  quote: [
    'Error bodies are JSON `{error: <message string>}`.',
    { source: 'RFC 9110 15.5.6', text: 'The origin server MUST generate an Allow header field in a 405 response containing a list of the target resource\'s currently supported methods.' },
  ],
  inferred: 'the service document names only the methods it documents; the answer to any other (405 with Allow, or 501) is HTTP\'s (RFC 9110), not the spec\'s',
  writes: false,
  operations: ['every documented path, called with PUT; representative paths with PATCH, DELETE, GET, POST and a method the service implements nowhere'],
  timeoutSeconds: 120,
  async run(t) {
    const byPath = new Map<string, { op: OperationInfo; documented: Set<string> }>()
    for (const op of t.operations()) {
      const entry = byPath.get(op.path) ?? { op, documented: new Set<string>() }
      entry.documented.add(op.method)
      byPath.set(op.path, entry)
    }
    // Sent without a body or an Idempotency-Key: a server that wrongly takes the method as its documented one finds no input to act on.
    const send = (op: OperationInfo, method: string) => t.request(op, { method, pathParams: Object.fromEntries(op.pathParams.map((p) => [p.name, t.name('method')])) })
    const paths = [...byPath.values()]
    for (const { op, documented } of paths) {
      if (documented.has('PUT')) continue
      check405(t, 'PUT', op.path, documented, await send(op, 'PUT'))
    }
    // One path that takes only POST and one that takes only GET, with every other probe and a method the service implements nowhere.
    const representatives = [paths.find((p) => p.documented.size === 1 && p.documented.has('POST')), paths.find((p) => p.documented.size === 1 && p.documented.has('GET'))]
    for (const entry of representatives) {
      if (!entry) continue
      for (const method of PROBES.filter((m) => m !== 'PUT' && !entry.documented.has(m))) check405(t, method, entry.op.path, entry.documented, await send(entry.op, method))
      const reply = await send(entry.op, UNIMPLEMENTED)
      t.check((reply.status === 405 && reply.headers.has('allow')) || reply.status === 501, {
        operation: `${UNIMPLEMENTED} ${entry.op.path}`,
        message: `a method the service implements nowhere got ${reply.status}`,
        expected: 'HTTP 405 with Allow, or 501 (RFC 9110 9.1); never another 5xx',
        received: describe(reply),
        exchange: reply.exchange,
      })
      t.check(isErrorBody(reply), { operation: `${UNIMPLEMENTED} ${entry.op.path}`, message: 'the refusal body is not {error}', expected: 'JSON {"error": "..."} (spec: Errors)', received: reply.text.slice(0, 200) || '(empty)', exchange: reply.exchange })
    }
  },
}
