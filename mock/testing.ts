/**
 * Helpers for tests of the mock (and of clients using it): synthetic operations to exercise the
 * pipeline's rules on shapes the contract may not have yet, and response validation.
 */
import { describeAjvError, type Contract, type JsonSchema, type OperationInfo } from '../openapi/index.ts'

/** An operation built on a real one, for pipeline tests (`createHandlers(state, { operations: [op] })`). */
export function syntheticOperation(contract: Contract, overrides: Partial<OperationInfo> & { operationId: string; method: OperationInfo['method']; path: string }): OperationInfo {
  const base = contract.byId.get('getShopSps')!
  const op: OperationInfo = {
    ...base,
    query: [],
    pathParams: [],
    hasBody: overrides.method !== 'GET',
    requestSchema: overrides.method !== 'GET' ? { type: 'object' } : undefined,
    paging: undefined,
    ...overrides,
    permission: overrides.permission ?? `${overrides.method} ${overrides.path}`,
  }
  const statuses = new Set(op.statuses)
  if (op.idempotent) statuses.add(409)
  op.statuses = [...statuses].sort((a, b) => a - b)
  op.successStatus = op.statuses.find((s) => s < 300) ?? 200
  // Any JSON for the success; the shared error responses for the rest.
  const errorNames: Record<number, string> = { 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 412: 'PreconditionFailed', 413: 'PayloadTooLarge', 429: 'TooManyRequests' }
  const responses: Record<string, JsonSchema> = {}
  for (const status of op.statuses) {
    responses[String(status)] = errorNames[status] ? { $ref: `#/components/responses/${errorNames[status]}` } : { description: 'Success.', content: { 'application/json': { schema: {} } } }
  }
  op.operation = { ...base.operation, operationId: op.operationId, responses }
  return op
}

/** Undefined when the body validates against the operation's documented response, else the problem. */
export function contractProblem(contract: Contract, op: OperationInfo, status: number, bodyText: string): string | undefined {
  if (!op.statuses.includes(status)) return `${op.operationId}: status ${status} is not documented (documented: ${op.statuses.join(', ')})`
  const check = contract.validators.response(op, status)
  if (!check) return undefined
  let body: unknown
  try {
    body = JSON.parse(bodyText)
  } catch {
    return `${op.operationId}: ${status} body is not JSON: ${bodyText.slice(0, 200)}`
  }
  return check(body) ? undefined : `${op.operationId}: ${status} body does not match the contract: ${describeAjvError(check.errors![0], 'response')}`
}

/**
 * A small example of a request schema: required properties only, from `default`, `enum`, `const`,
 * formats and bounds. Dates fall in the 30 days before `today`.
 */
export function exampleFromSchema(contract: Contract, schema: JsonSchema | undefined, today: string, name = ''): unknown {
  if (!schema) return undefined
  const resolve = (s: JsonSchema): JsonSchema => (typeof s.$ref === 'string' ? resolve(contract.doc.components.schemas[(s.$ref as string).split('/').pop()!]) : s)
  const s = resolve(schema)
  if ('default' in s) return s.default
  if ('const' in s) return s.const
  if (Array.isArray(s.enum)) return s.enum.find((v) => v !== null)
  const branches = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined
  // `anyOf: [{required: [a]}, {required: [b]}]` on an object: satisfy the first branch.
  if (branches && s.properties) {
    const { anyOf: _a, oneOf: _o, ...rest } = s
    const firstRequired = (resolve(branches[0]).required ?? []) as string[]
    return exampleFromSchema(contract, { ...rest, required: [...new Set([...((s.required ?? []) as string[]), ...firstRequired])] }, today, name)
  }
  if (branches) return exampleFromSchema(contract, branches.find((b) => resolve(b).type !== 'null') ?? branches[0], today, name)
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined)
  switch (type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>
      const required = (s.required ?? []) as string[]
      const out: Record<string, unknown> = {}
      for (const key of required) out[key] = exampleFromSchema(contract, props[key] ?? {}, today, key)
      if (props.from && props.to && required.length === 0) {
        out.from = exampleFromSchema(contract, props.from, today, 'from')
        out.to = exampleFromSchema(contract, props.to, today, 'to')
      }
      return out
    }
    case 'array': {
      const min = (s.minItems as number | undefined) ?? 0
      return Array.from({ length: min }, () => exampleFromSchema(contract, (s.items ?? {}) as JsonSchema, today, name))
    }
    case 'integer':
    case 'number':
      return (s.minimum as number | undefined) ?? 1
    case 'boolean':
      return false
    case 'string': {
      if (s.format === 'date') {
        const d = new Date(`${today}T00:00:00Z`)
        if (name === 'from') d.setUTCDate(d.getUTCDate() - 29)
        return d.toISOString().slice(0, 10)
      }
      if (s.format === 'date-time') return `${today}T00:00:00Z`
      if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000'
      const min = (s.minLength as number | undefined) ?? 1
      return 'x'.repeat(Math.max(1, min))
    }
    default:
      return undefined
  }
}

/** A call as the sweeps send it: the path with its parameters filled in, the query text, the JSON body. */
export interface MinimalCall {
  path: string
  query: string
  body?: string
}

/**
 * A minimal valid request for an operation, built from its schemas: path parameters from their
 * examples (an idempotency `key` names no record), the required query parameters (objects in
 * deepObject form, arrays repeated) and the body's required fields.
 */
export function minimalCall(contract: Contract, op: OperationInfo, today: string): MinimalCall {
  let path = op.path
  for (const p of op.pathParams) path = path.replace(`{${p.name}}`, p.name === 'key' ? 'no-such-key' : String(exampleFromSchema(contract, p.schema, today, p.name)))
  const query = new URLSearchParams()
  for (const p of op.query.filter((q) => q.required)) {
    const value = exampleFromSchema(contract, p.schema, today, p.name)
    if (value && typeof value === 'object' && !Array.isArray(value)) for (const [k, v] of Object.entries(value)) query.append(`${p.name}[${k}]`, String(v))
    else if (Array.isArray(value)) for (const v of value) query.append(p.name, String(v))
    else query.append(p.name, String(value))
  }
  const body = op.hasBody ? JSON.stringify(exampleFromSchema(contract, op.requestSchema, today) ?? {}) : undefined
  return { path, query: query.toString(), body }
}

/**
 * The operations a sweep can call again and again: no Idempotency-Key and no create, update, delete...
 * verb (aliases included; adding and removing a tag repeat to the same state).
 */
export function readingOperations(contract: Contract): OperationInfo[] {
  return contract.operations.filter((op) => !op.idempotent && !/^(create|update|delete|merge|toggle|approve|reject|ignore|unignore|send|authorize|tag|untag)/.test(op.operationId))
}
