/**
 * The contract, judged on every answer (conformance/schema.ts, the suite's own check): a documented
 * status, a JSON content type, a body valid against the documented schema, the documented headers;
 * and the sweeps' promise that no operation answers 5xx or nothing at all.
 */
import { responseKeyOf, type Contract, type OperationInfo } from '../../openapi/index.ts'
import { checkResponse } from '../../conformance/schema.ts'
import { isWrite } from '../../conformance/examples.ts'
import type { SchemaFinding } from '../../conformance/types.ts'
import { describeObserved, type Observed, type PassiveJudge } from './types.ts'

interface HeaderObject {
  required?: boolean
  schema?: { type?: string; minimum?: number }
  'x-inferred'?: boolean
}

/** The headers documented for a status (a response given by $ref resolved). */
function documentedHeaders(contract: Contract, op: OperationInfo, status: number): Record<string, HeaderObject> {
  const key = responseKeyOf(op, status)
  let response = key === undefined ? undefined : (op.operation.responses[key] as Record<string, any> | undefined)
  if (typeof response?.$ref === 'string') response = contract.doc.components.responses[response.$ref.split('/').pop()!] as Record<string, any>
  return (response?.headers ?? {}) as Record<string, HeaderObject>
}

function responsesValid(): PassiveJudge {
  /** The findings on the last answer of each operation and status: an identical answer is judged once. */
  const last = new Map<string, { text: string; findings: SchemaFinding[] }>()
  return {
    rule: 'contract.responses-valid',
    judges: 'every answer of the upstream, its content codings undone: a documented status, a JSON content type, a body valid against the documented schema, the documented headers (findings on x-inferred parts are warnings)',
    unreadableBodies: true,
    observe(o, t) {
      if (o.x.upstream === undefined) return
      t.exercised(o)
      if (o.x.upstream.truncated) {
        t.warn(o, { message: 'the body is over 1 MB: its schema was not judged', expected: 'a body the proxy can hold', received: `${o.x.upstream.raw.length}+ bytes` })
        return
      }
      if (o.unreadable) {
        // RFC 9110 8.4: a body that does not decode as its codings say is the server's fault; one the proxy cannot decode (or over its bound) is not judged.
        const report = o.unreadable.kind === 'undecodable' ? t.fail : t.warn
        report(o, { message: `the body ${o.unreadable.message}`, expected: 'a body that decodes as its Content-Encoding (and Transfer-Encoding) say', received: describeObserved(o, 300) })
        return
      }
      // RFC 9110 15.4.5: a 304 answers a conditional GET (the client's cached answer is still good): no body, not an answer of the contract's.
      if (o.status === 304 && (o.x.requestHeaders['if-none-match'] !== undefined || o.x.requestHeaders['if-modified-since'] !== undefined)) return
      const key = `${o.op.operationId} ${o.status} ${o.headers['content-type']}`
      let judged = last.get(key)
      if (judged?.text !== o.text) last.set(key, (judged = { text: o.text, findings: checkResponse(t.contract, o.op, { status: o.status, contentType: o.headers['content-type'] ?? null, text: o.text }) }))
      for (const finding of judged.findings) {
        const report = finding.severity === 'error' ? t.fail : t.warn
        report(o, { message: finding.message, expected: `a response of ${o.op.method} ${o.op.path} as the contract documents it`, received: describeObserved(o, 300) })
      }
      for (const [name, header] of Object.entries(documentedHeaders(t.contract, o.op, o.status))) {
        const value = o.headers[name.toLowerCase()]
        const report = header['x-inferred'] || o.op.inferred ? t.warn : t.fail
        if (value === undefined) {
          if (header.required || name.toLowerCase() === 'retry-after') report(o, { message: `${o.status} carries the ${name} header${header['x-inferred'] ? ' (inferred)' : ''}`, expected: `${name}: …`, received: `no ${name} header` })
          continue
        }
        if (header.schema?.type === 'integer' && !(/^\d+$/.test(value.trim()) && Number(value) >= (header.schema.minimum ?? -Infinity))) {
          report(o, { message: `${name} is an integer${header.schema.minimum !== undefined ? ` >= ${header.schema.minimum}` : ''}`, expected: `${name}: <integer>`, received: `${name}: ${value}` })
        }
      }
    },
  }
}

const serverError = (o: Observed) => o.x.upstreamError !== undefined || (o.x.upstream !== undefined && o.status >= 500)

const neverFails = (rule: string, writes: boolean): PassiveJudge => ({
  rule,
  unreadableBodies: true,
  judges: `every ${writes ? 'writing' : 'reading'} operation the traffic calls answers, and never with a 5xx (a timeout, a reset connection or a 5xx is a finding)`,
  observe(o, t) {
    if (isWrite(o.op) !== writes || (o.x.upstream === undefined && o.x.upstreamError === undefined)) return
    t.exercised(o)
    if (serverError(o)) t.fail(o, { message: `${o.op.permission} ${o.x.upstreamError ? `got no answer: ${o.x.upstreamError}` : `answered ${o.status}`}`, expected: 'a documented answer, never 5xx', received: o.x.upstreamError ?? describeObserved(o) })
  },
})

/** Arrivals within this span count as one second's worth (the margin covers the trip to the upstream). */
const BURST_SPAN_MS = 900
/** Over twice the limit within one span: whatever the upstream's window (fixed or sliding), one window held more than 10. */
const BURST_COUNT = 21

/**
 * spec: Limits: request rate (10 per second per key, measured per shop); Errors: 429 with an {error}
 * body (Retry-After inferred: the contract's header). A burst the upstream served whole is a finding too.
 */
function burst429(): PassiveJudge {
  /** Arrival times of the answers served (2xx) per key and shop, sorted. */
  const served = new Map<string, number[]>()
  return {
    rule: 'ratelimit.burst-429',
    judges: `every 429 carries an {error} body and Retry-After (inferred: a warning); ${BURST_COUNT} requests of one key and shop arriving within ${BURST_SPAN_MS} ms are not all served`,
    observe(o, t) {
      if (o.status === 429 && o.x.upstream !== undefined) {
        t.exercised(o)
        if (o.error === undefined) t.fail(o, { message: '429 has an {error} body', expected: 'HTTP 429 {"error": …}', received: describeObserved(o) })
        if (o.headers['retry-after'] === undefined) t.warn(o, { message: '429 carries a Retry-After header (inferred)', expected: 'Retry-After: <seconds>', received: 'no Retry-After' })
        return
      }
      const key = o.x.requestHeaders['x-api-key']
      const shop = o.x.requestHeaders['x-shop-id']
      if (o.op.auth !== 'key+shop' || !key || !shop || o.status < 200 || o.status >= 300) return
      const pair = `${key} ${shop}`
      const list = served.get(pair) ?? served.set(pair, []).get(pair)!
      let at = list.length
      while (at > 0 && list[at - 1]! > o.x.atMs) at--
      list.splice(at, 0, o.x.atMs)
      let old = 0
      while (old < list.length && list[old]! < list[list.length - 1]! - 10 * BURST_SPAN_MS) old++
      if (old) {
        list.splice(0, old)
        at -= old
      }
      // Only the windows holding the new arrival can have become full.
      for (let end = Math.max(BURST_COUNT - 1, at); end < Math.min(list.length, at + BURST_COUNT); end++) {
        if (list[end]! - list[end - BURST_COUNT + 1]! >= BURST_SPAN_MS) continue
        t.exercised(o)
        t.fail(o, { message: `${BURST_COUNT} requests of one key and shop arrived within ${list[end]! - list[end - BURST_COUNT + 1]!} ms and were all served`, expected: 'HTTP 429 for the requests over 10 per second', received: `${BURST_COUNT} answers 2xx, the last ${describeObserved(o, 80)}` })
        // One finding per burst.
        list.length = 0
        return
      }
    },
  }
}

export const contractJudges = (): PassiveJudge[] => [neverFails('contract.reads-answer', false), neverFails('contract.writes-answer', true), burst429(), responsesValid()]
