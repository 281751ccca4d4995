/**
 * The vocabulary of client certification: a client rule grades a recording of the requests a
 * client made to the twin, and returns its findings as data, with the requests that show them.
 */
import type { Contract, OperationInfo } from '../../openapi/index.ts'
import type { RecordedRequest } from '../../mock/pipeline/certification.ts'
import type { Provenance } from '../provenance.ts'
import type { RuleLevel } from '../types.ts'
import type { Recording } from './session.ts'

/** A recorded request with what grading derives from it. */
export interface GradedRequest extends RecordedRequest {
  op: OperationInfo
  /** The JSON body, or the GET form's query as an object; {} when neither. */
  input: Record<string, any>
  /** The operationId whose handler answers (the canonical one for aliases: GET forms, /v1). */
  canonicalId: string
  /** The body was sent but is not a JSON object. */
  parseError: boolean
}

/** What a rule sees: the recording, its requests enriched, and the contract. */
export interface GradingContext {
  recording: Recording
  requests: GradedRequest[]
  contract: Contract
}

/** A failed expectation, with the requests that show it (their seq numbers). */
export interface ClientFailure {
  message: string
  expected: string
  received: string
  requests: number[]
}

/**
 * What a rule found. `exercised: false` when the situation the rule judges never arose in the
 * recording: such a rule is reported "not exercised", never "passed".
 */
export type Grade = { exercised: false; reason: string } | { exercised: true; failures: ClientFailure[]; evidence: number[] }

/**
 * A situation the twin produces under certification (the adversity schedule, or the world the session
 * prepares) that a rule needs before it can judge anything: a 429, a write fault, a 409 in flight, a
 * board changed before the client's update, a refreshing halo report, a listing deeper than its depth
 * cap, an Enterprise call refused to a standard key.
 */
export type Situation = 'a 429' | 'a write fault' | 'a 409 in flight' | 'a board changed before the update' | 'a refreshing halo report' | 'a listing deeper than its cap' | 'an Enterprise call refused'

/** A behavioural rule a client of the service must follow: one object in one file. */
export interface ClientRule extends Provenance {
  /** `<area>.<behaviour>`, the file's path under conformance/certify-client/rules/. */
  id: string
  title: string
  /** Section of the service document the rule comes from. */
  spec: string
  level: RuleLevel
  /**
   * The requests the rule is about (its scope): a client that made none of them is outside it and
   * the rule is "not applicable" (it does not block a certificate scoped to what the client does).
   */
  appliesTo(request: GradedRequest): boolean
  /** What `appliesTo` selects, for the report: `dashboard updates carrying expected_updated_at`. */
  scope: string
  /**
   * The situations the twin must produce for the rule to be exercised ([] when the client's own
   * requests are the situation). test/certify-client-situations.test.ts proves each is produced on a
   * client's first applicable call.
   */
  situations: readonly Situation[]
  /**
   * Per-request work `grade` would do, done ahead on a few requests at a time while the recording is
   * read (grade.ts outcomeSteps), so that no single step of the grading holds the loop for a whole
   * window (the proxy grades between requests). Optional; `grade` gives the same outcome without it.
   */
  prepare?(requests: GradedRequest[], contract: Contract): void
  grade(t: GradingContext): Grade
}
