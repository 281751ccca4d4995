/**
 * Every failing field of a request, for its trace. The answer names the first failure (ajv stops
 * there, which is also the cheaper path); the trace runs the same schema again with `allErrors`, only
 * when validation failed and tracing is on.
 */
import type { ErrorObject } from 'ajv'
import { ContractValidators, describeAjvError, type Contract, type JsonSchema } from '../../openapi/index.ts'

const allErrorValidators = new WeakMap<Contract, ContractValidators>()

/** Most failures listed (a generated body can fail on every item of a long array). */
const MAX_FAILURES = 50
/** Bodies past this size are not validated again: the answer's first failure is what the trace shows. */
const MAX_INPUT_CHARS = 64 * 1024

/** The messages of every error of `schema` on `input` (deduplicated, in ajv's order, at most 50); [] when the input is too large to go over again. */
export function allFailures(contract: Contract, key: string, schema: JsonSchema, input: unknown, size: number, root: string, describe: (error: ErrorObject, root: string) => string = describeAjvError): string[] {
  let validators = allErrorValidators.get(contract)
  if (!validators) allErrorValidators.set(contract, (validators = new ContractValidators(contract.doc, { allErrors: true })))
  if (size > MAX_INPUT_CHARS) return []
  const check = validators.compile(key, schema)
  if (check(input)) return []
  const failures = [...new Set((check.errors ?? []).filter((e) => e.keyword !== 'if' && e.keyword !== 'anyOf' && e.keyword !== 'oneOf').map((e) => describe(e, root)))]
  return failures.length > MAX_FAILURES ? [...failures.slice(0, MAX_FAILURES), `... ${failures.length - MAX_FAILURES} more`] : failures
}
