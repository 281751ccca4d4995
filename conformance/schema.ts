/**
 * Schema conformance of a response: the status is documented for the operation, the body is JSON,
 * and it is valid against the documented schema for that status. Findings on x-inferred
 * operations, responses or schema parts are warnings: the contract guessed there, the spec did not say.
 */
import { describeAjvError, responseKeyOf, type Contract, type JsonSchema, type OperationInfo } from '../openapi/index.ts'
import type { SchemaFinding } from './types.ts'

/** Checks one response against the contract; returns nothing when it conforms. */
export function checkResponse(
  contract: Contract,
  op: OperationInfo,
  response: { status: number; contentType: string | null; text: string },
): SchemaFinding[] {
  const { status } = response
  const finding = (inferred: boolean, message: string): SchemaFinding[] => [
    { severity: inferred || op.inferred ? 'warning' : 'error', operationId: op.operationId, status, message },
  ]
  if (responseKeyOf(op, status) === undefined) {
    return finding(false, `status ${status} is not documented for ${op.method} ${op.path} (documented: ${Object.keys(op.operation.responses).join(', ')})`)
  }
  const responseObject = resolveResponse(contract, op, status)
  const responseInferred = responseObject?.['x-inferred'] === true
  const mediaType = (response.contentType ?? '').split(';')[0].trim().toLowerCase()
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
    return finding(responseInferred, `Content-Type is ${response.contentType ?? 'absent'}, expected application/json`)
  }
  let body: unknown
  try {
    body = JSON.parse(response.text)
  } catch {
    return finding(responseInferred, `body is not valid JSON: ${response.text.slice(0, 80)}`)
  }
  const validate = contract.validators.response(op, status)
  if (!validate || validate(body)) return []
  const error = validate.errors![0]
  const schema = responseSchema(responseObject)
  const inferredPart = responseInferred || (schema ? inferredAlong(contract, schema, error.instancePath) : false)
  return finding(inferredPart, `${status} body: ${describeAjvError(error, 'body')}`)
}

function resolveResponse(contract: Contract, op: OperationInfo, status: number): Record<string, unknown> | undefined {
  let response = op.operation.responses[responseKeyOf(op, status) ?? String(status)] as Record<string, unknown> | undefined
  if (response && typeof response.$ref === 'string') {
    response = contract.doc.components.responses[(response.$ref as string).split('/').pop()!] as Record<string, unknown>
  }
  return response
}

function responseSchema(response: Record<string, unknown> | undefined): JsonSchema | undefined {
  return (response?.content as Record<string, { schema: JsonSchema }> | undefined)?.['application/json']?.schema
}

/** Whether any schema on the way from the root to the instance path is marked x-inferred. */
export function inferredAlong(contract: Contract, root: JsonSchema, instancePath: string): boolean {
  const segments = instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
  let frontier: JsonSchema[] = [root]
  for (let depth = 0; depth <= segments.length; depth++) {
    const expanded = frontier.flatMap((s) => expand(contract, s))
    if (expanded.some((s) => s['x-inferred'] === true)) return true
    if (depth === segments.length) break
    const segment = segments[depth]
    frontier = expanded.flatMap((s) => {
      const next: JsonSchema[] = []
      const properties = s.properties as Record<string, JsonSchema> | undefined
      if (properties && Object.hasOwn(properties, segment)) next.push(properties[segment]!)
      if (/^\d+$/.test(segment) && s.items && typeof s.items === 'object') next.push(s.items as JsonSchema)
      if (s.additionalProperties && typeof s.additionalProperties === 'object') next.push(s.additionalProperties as JsonSchema)
      return next
    })
    if (!frontier.length) return false
  }
  return false
}

/** A schema with its $ref resolved and its anyOf/oneOf/allOf branches listed beside it. */
function expand(contract: Contract, schema: JsonSchema, seen = 0): JsonSchema[] {
  if (seen > 8) return [schema]
  const out: JsonSchema[] = []
  let s = schema
  if (typeof s.$ref === 'string') {
    const name = (s.$ref as string).split('/').pop()!
    const target = contract.doc.components.schemas[name]
    if (target) s = { ...target, ...(schema['x-inferred'] ? { 'x-inferred': true } : {}) }
  }
  out.push(s)
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    for (const branch of (s[key] as JsonSchema[] | undefined) ?? []) out.push(...expand(contract, branch, seen + 1))
  }
  return out
}
