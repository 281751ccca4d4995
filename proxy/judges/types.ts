/**
 * A passive judge: the part of a conformance rule (conformance/rules/) that traffic alone can decide.
 * It sees each exchange once the upstream has answered, in completion order, and says when the
 * situation its rule judges arose (exercised) and what went wrong (findings). A rule whose situation
 * never arose is "not exercised", never passed.
 */
import type { Contract, OperationInfo } from '../../openapi/index.ts'
import type { GradedRequest } from '../../conformance/certify-client/types.ts'
import type { ProxyExchange } from '../exchange.ts'
import type { Unreadable } from '../codings.ts'

/** One exchange as a judge sees it: the request as the service reads it, the upstream's answer. */
export interface Observed {
  x: ProxyExchange
  op: OperationInfo
  /** The request with its input parsed (JSON body, or GET query; camelCase keys read as snake_case). */
  request: GradedRequest
  status: number
  headers: Record<string, string>
  text: string
  /** The parsed body, undefined when it is not JSON. */
  json: any
  /** The `error` message of a JSON error body. */
  error: string | undefined
  /** Why the body could not be read (proxy/codings.ts): only judges with `unreadableBodies` see such an exchange. */
  unreadable?: Unreadable
}

export interface Finding {
  message: string
  expected: string
  received: string
}

export interface JudgeContext {
  contract: Contract
  /** The rule's situation arose on this exchange (its evidence). */
  exercised(o: Observed): void
  fail(o: Observed, finding: Finding): void
  /** A finding that is never a failure (x-inferred parts of the contract). */
  warn(o: Observed, finding: Finding): void
}

export interface PassiveJudge {
  /** The conformance rule judged (its id, title, level and spec come from the catalogue). */
  rule: string
  /** What the proxy judges from traffic, in a sentence (the report shows it). */
  judges: string
  /** It also sees answers whose body could not be read (it judges their status, or says why the body was not judged); the other judges skip them. */
  unreadableBodies?: boolean
  observe(o: Observed, t: JudgeContext): void
}

/** `POST /automations/create → 201` */
export const describeObserved = (o: Observed, length = 200): string => `${o.x.method} ${o.x.path}${o.x.query} → ${o.status} ${o.text.slice(0, length)}`
