/**
 * Every failing field of a request, for its trace. The answer names the first failure (ajv stops
 * there, which is also the cheaper path); the trace runs the same schema again with `allErrors`, only
 * when validation failed and tracing is on.
 */
import type { ErrorObject } from 'ajv'
import { ContractValidators, describeAjvError, type Contract, type JsonSchema } from '../../openapi/index.ts'

const allErrorValidators = new WeakMap<Contract, ContractValidators>()

/** The messages of every error of `schema` on `input` (deduplicated, in ajv's order). */
export function allFailures(contract: Contract, key: string, schema: JsonSchema, input: unknown, root: string, describe: (error: ErrorObject, root: string) => string = describeAjvError): string[] {
  let validators = allErrorValidators.get(contract)
  if (!validators) allErrorValidators.set(contract, (validators = new ContractValidators(contract.doc, { allErrors: true })))
  const check = validators.compile(key, schema)
  if (check(input)) return []
  return [...new Set((check.errors ?? []).filter((e) => e.keyword !== 'if' && e.keyword !== 'anyOf' && e.keyword !== 'oneOf').map((e) => describe(e, root)))]
}
