/**
 * The connector's tools: one per operation of the contract (aliases left out), named by its
 * operationId, described by the contract, taking the request schema's fields plus `shop_id` (the
 * x-shop-id header), `idempotency_key` (the Idempotency-Key header, where the operation has it) and
 * any path parameter. Schemas are self-contained: component references become `$defs`.
 */
import { describeAjvError, type Contract, type OperationInfo } from '../../openapi/index.ts'

type JsonSchema = Record<string, unknown>

export interface ConnectorTool {
  name: string
  title: string
  description: string
  inputSchema: JsonSchema & { type: 'object' }
  op: OperationInfo
  /** The contract's tag: how the consent page groups tools. */
  area: string
  /** Reads change nothing (list/get/search operations); writes do. */
  kind: 'read' | 'write'
  /** Arguments that are not request-body fields. */
  shopArgument: boolean
}

const READ_PREFIXES = ['list', 'get', 'search']
/** The keywords of a request body's schema that constrain several of its fields together. */
const BODY_RULES = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else'] as const
const COMPONENT_REF = '#/components/schemas/'

const catalogs = new WeakMap<Contract, ConnectorTool[]>()

/** The tools of a contract (built once per contract). */
export function connectorTools(contract: Contract): ConnectorTool[] {
  let tools = catalogs.get(contract)
  if (!tools) catalogs.set(contract, (tools = contract.operations.filter((op) => !op.aliasOf).map((op) => toolOf(contract, op))))
  return tools
}

function toolOf(contract: Contract, op: OperationInfo): ConnectorTool {
  const components = ((contract.doc as unknown as { components?: { schemas?: Record<string, JsonSchema> } }).components?.schemas ?? {}) as Record<string, JsonSchema>
  const request = (op.requestSchema ?? {}) as JsonSchema
  const properties: Record<string, unknown> = {}
  const required: string[] = []
  const shopArgument = op.auth === 'key+shop'
  if (shopArgument) {
    properties.shop_id = { type: 'string', minLength: 1, pattern: '\\S', description: 'The shop to act on (shop_id from listAccountShops; one of the shops this connection may use). Not blank: without it the tool answers 400 (Missing shop_id argument).' }
    required.push('shop_id')
  }
  for (const p of op.pathParams) {
    properties[p.name] = { ...(p.schema as JsonSchema), description: `Path parameter {${p.name}} of ${op.path}` }
    required.push(p.name)
  }
  if (op.idempotent) {
    properties.idempotency_key = { type: 'string', pattern: '^[A-Za-z0-9-]{1,128}$', description: 'Optional Idempotency-Key: a retry with the same key returns the first answer without acting again (spec: Idempotency).' }
  }
  for (const [name, schema] of Object.entries((request.properties ?? {}) as Record<string, unknown>)) properties[name] = rewriteRefs(schema)
  for (const name of (request.required ?? []) as string[]) required.push(name)
  const defs: Record<string, unknown> = {}
  collectDefs(request, components, defs)
  const inputSchema: ConnectorTool['inputSchema'] = { type: 'object', properties, ...(required.length ? { required } : {}) }
  if (request.additionalProperties === false) inputSchema.additionalProperties = false
  // The body's rules over several fields (a date range in one of two spellings, static vs dynamic briefs,
  // fields that exclude each other) hold for the arguments too: the same names at the same level.
  for (const key of BODY_RULES) if (request[key] !== undefined) inputSchema[key] = rewriteRefs(request[key])
  if (Object.keys(defs).length) inputSchema.$defs = defs
  const operation = op.operation as unknown as { summary?: string; description?: string }
  const description = [operation.summary ?? op.summary, operation.description, `Same as ${op.permission} (spec: ${op.specSection}).`].filter(Boolean).join('\n\n')
  return {
    name: op.operationId,
    title: op.summary,
    description,
    inputSchema,
    op,
    area: op.tag,
    kind: READ_PREFIXES.some((p) => op.operationId.startsWith(p)) ? 'read' : 'write',
    shopArgument,
  }
}

function rewriteRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rewriteRefs)
  if (!schema || typeof schema !== 'object') return schema
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(schema)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT_REF) ? `#/$defs/${v.slice(COMPONENT_REF.length)}` : rewriteRefs(v)
  return out
}

function collectDefs(schema: unknown, components: Record<string, JsonSchema>, defs: Record<string, unknown>): void {
  if (Array.isArray(schema)) return schema.forEach((s) => collectDefs(s, components, defs))
  if (!schema || typeof schema !== 'object') return
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT_REF)) {
      const name = v.slice(COMPONENT_REF.length)
      if (!(name in defs) && components[name]) {
        defs[name] = rewriteRefs(components[name])
        collectDefs(components[name], components, defs)
      }
    } else collectDefs(v, components, defs)
  }
}

/**
 * What is wrong with the arguments that do not travel in a request body (so the API's body validation
 * never sees their types): `shop_id`, `idempotency_key`, path parameters, and every argument of a GET
 * operation (they become query text, where `5` and `"5"` look alike). Checked against the tool's own
 * inputSchema, so a tool refuses what it declares it does not take (a number for the idempotency key).
 */
export function argumentProblem(contract: Contract, tool: ConnectorTool, args: Record<string, unknown>): string | undefined {
  const outside = new Set(['shop_id', 'idempotency_key', ...tool.op.pathParams.map((p) => p.name)])
  const all = tool.op.method === 'GET'
  const pathParams = new Set(tool.op.pathParams.map((p) => p.name))
  // A path parameter's type only: its format is the API's to refuse, with the spec's message (`Invalid idempotency key format`).
  const properties = Object.fromEntries(
    Object.entries((tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>)
      .filter(([name]) => all || outside.has(name))
      .map(([name, s]) => [name, pathParams.has(name) ? { type: s.type ?? 'string' } : s]),
  )
  const schema = JSON.parse(JSON.stringify({ ...tool.inputSchema, properties, required: undefined, $defs: undefined, allOf: undefined, anyOf: undefined, oneOf: undefined, not: undefined, if: undefined, then: undefined, else: undefined }).replaceAll('"#/$defs/', `"${COMPONENT_REF}`))
  const validate = contract.validators.compile(`connector-tool:${tool.name}:arguments`, schema)
  const given = Object.fromEntries(Object.entries(args).filter(([name]) => all || outside.has(name)))
  return validate(given) ? undefined : describeAjvError(validate.errors![0]!, 'arguments')
}
