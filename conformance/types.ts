/**
 * The vocabulary of the conformance suite: a rule, what it receives (a context over the target),
 * and what it gives back (an outcome whose failures are data). Only reporters print.
 */
import type { Contract, OperationInfo } from '../openapi/index.ts'
import type { Provenance, Quote } from './provenance.ts'

/** MUST: the spec states it (its words in `quote`). SHOULD: guidance or our inference, said in `inferred` (a failure is a warning, not a failed certification). */
export type RuleLevel = 'MUST' | 'SHOULD'

/** What the user asked for on the command line; everything the rules may know about the target. */
export interface RunOptions {
  baseUrl: string
  apiKey: string
  shopId: string
  enterpriseApiKey?: string
  /** A key limited to some routes and to the first shop (for the permission-scope rule). */
  limitedApiKey?: string
  allowWrites: boolean
  /** Rule-id patterns (`idempotency.*`, `auth`, exact ids); empty means every rule. */
  rules: string[]
  reportDir?: string
  /** Requests per second the suite stays under. */
  rps: number
  /** Seconds the halo rule waits for `refreshing` to become `ok`. */
  haloBoundSeconds: number
  /** Seconds a rule may take before it is failed as timed out. */
  ruleTimeoutSeconds: number
  /** Exit 1 for anything short of CERTIFIED (a CI gate that must not pass a partial run). */
  requireCertified?: boolean
}

/** One request the suite made and the answer it got, with the key already redacted. */
export interface Exchange {
  seq: number
  rule: string
  operationId: string
  method: string
  url: string
  requestHeaders: Record<string, string>
  requestBody?: string
  status: number
  responseHeaders: Record<string, string>
  /** The body as text, cut to an excerpt when long. */
  responseExcerpt: string
  durationMs: number
  /** Answered 429 and was retried by the client (not a verdict of any rule). */
  retried?: boolean
  curl: string
  /** Schema findings on this response (empty when valid). */
  schema: SchemaFinding[]
}

/** A response that does not match the contract. Warnings come from x-inferred parts. */
export interface SchemaFinding {
  severity: 'error' | 'warning'
  operationId: string
  status: number
  message: string
}

/** A failed expectation, as data. */
export interface Failure {
  rule: string
  operation?: string
  message: string
  expected: string
  received: string
  /** The exchange that shows it (request, response excerpt, curl), when there is one. */
  exchange?: Exchange
}

export type RuleStatus = 'pass' | 'fail' | 'skip' | 'error'

/** What running one rule produced. */
export interface RuleOutcome {
  id: string
  title: string
  spec: string
  level: RuleLevel
  /** The spec sentence(s) the rule enforces (from the rule; set when the report is built). */
  quote?: readonly Quote[]
  /** Why a SHOULD rule is not a MUST: what of it is our inference. */
  inferred?: string
  writes: boolean
  area: string
  status: RuleStatus
  /** Why a rule was skipped or errored. */
  reason?: string
  /**
   * A skip because the target's API gives no way to observe what the rule checks: the operations it
   * needs are ones whose paths the spec does not show, and the target does not serve the contract's
   * inferred ones. Reported as such; it does not keep a complete run from CERTIFIED, whose verdict names it.
   */
  notCheckable?: boolean
  failures: Failure[]
  /** Findings reported without failing: SHOULD-level details, x-inferred schema parts. */
  warnings: Failure[]
  /** Every operationId the rule's requests exercised. */
  operations: string[]
  exchanges: Exchange[]
  durationMs: number
}

/** A handle on one answer: status, headers, text and parsed JSON. */
export interface Reply {
  status: number
  headers: Headers
  text: string
  /** Parsed body, or undefined when the body is not JSON. */
  json: any
  exchange: Exchange
  op: OperationInfo
}

export interface RequestOptions {
  body?: unknown
  query?: Record<string, unknown>
  pathParams?: Record<string, string>
  /** Extra or replacing headers; a null value removes a default header. */
  headers?: Record<string, string | null>
  /** Another shop id than the configured one; null sends no x-shop-id header. */
  shopId?: string | null
  /** Another key than the configured one; null sends no x-api-key header. */
  apiKey?: string | null
  idempotencyKey?: string
  /** A raw path replacing the operation's (to call an alias spelled differently). */
  path?: string
  /** No pacing and no 429 retry: for the burst of the rate-limit rule and concurrency checks. */
  unthrottled?: boolean
  /**
   * A method the operation does not have, on its path (the undocumented-methods rule): sent without a
   * body unless one is given, recorded under `<METHOD> <path>` rather than the operation's id, and not
   * schema-checked against the operation, whose answer it is not.
   */
  method?: string
}

/** What a rule receives: the target, the contract, and the ways to report. */
export interface RuleContext {
  readonly options: Readonly<Omit<RunOptions, 'apiKey' | 'enterpriseApiKey' | 'limitedApiKey'>> & { hasEnterpriseKey: boolean; hasLimitedKey: boolean }
  /** The operation of the contract named by its permission (`POST /ads/campaigns`) or operationId. */
  op(name: string): OperationInfo
  /** Every operation of the contract. */
  operations(): OperationInfo[]
  /** The contract the target is judged against. */
  readonly contract: Contract
  /** Sends a request for an operation; the response is schema-checked and recorded. */
  request(op: OperationInfo | string, options?: RequestOptions): Promise<Reply>
  /** The Enterprise key, to pass as `apiKey` (skips the rule when none was given). */
  enterpriseKey(): string
  /** The limited key, to pass as `apiKey` (skips the rule when none was given). */
  limitedKey(): string
  /** Records a failure and goes on. */
  fail(failure: Omit<Failure, 'rule'>): void
  /** Records a warning: reported, never a failed certification. */
  warn(failure: Omit<Failure, 'rule'>): void
  /** Every exchange of the run so far, of every rule (for verdicts over the whole run). */
  history(): readonly Exchange[]
  /** Records a failure when `ok` is false; returns ok. */
  check(ok: boolean, failure: Omit<Failure, 'rule'>): boolean
  /** Stops the rule as not applicable to this target (no data, no key, writes not allowed). */
  skip(reason: string): never
  /**
   * Stops the rule as not checkable against this target: what it checks can only be observed through
   * operations whose paths the spec does not show ("Paths, bodies and responses: not shown"), and the
   * target does not serve the contract's inferred paths. `reason` says which.
   */
  notCheckable(reason: string): never
  /** Registers a clean-up that runs whatever happened (in reverse order). */
  cleanup(fn: () => Promise<unknown>): void
  /** A name for a resource this rule creates: `conformance-<what>-<random>`. */
  name(what: string): string
  /** Waits until the target's rate-limit window is empty (before concurrent requests). */
  quiet(): Promise<void>
  /** Waits on the wall clock (bounded waits only: the limit window, the halo bound). */
  sleep(ms: number): Promise<void>
  /** Says, while the rule waits, what it waits for (a live line on the terminal). */
  progress(message: string): void
  /** Facts about the target shared between rules (shops, ids found by reading). */
  facts: Facts
}

/** Facts the suite learns by reading, cached for the run. */
export interface Facts {
  shops(): Promise<Array<{ shop_id: string; is_active: boolean; plan: string; shop_name: string }>>
  /** An id of a shop of the account that is not active, if there is one. */
  inactiveShopId(): Promise<string | undefined>
}

/** A behavioural rule: one object in one file. */
export interface Rule extends Provenance {
  /** Stable id, `<area>.<behaviour>`. */
  id: string
  title: string
  /** Section of the service document the rule comes from. */
  spec: string
  level: RuleLevel
  /** Whether it creates, changes or deletes anything (runs only with --allow-writes). */
  writes: boolean
  /** Permissions (`POST /ads/campaigns`) of the operations it exercises, for the catalogue. */
  operations: string[]
  /** Longest time the rule may take, in seconds (default: the run's rule timeout). */
  timeoutSeconds?: number
  run(t: RuleContext): Promise<void>
}

/** The area of a rule: the part of its id before the first dot. */
export const areaOf = (ruleId: string): string => ruleId.split('.')[0]
