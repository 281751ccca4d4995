/**
 * The contract at run time: the bundled document, an index of its operations, and ajv validators
 * compiled once from it. The mock validates requests and its own responses with these; the
 * conformance suite validates a target's responses with the same ones.
 */
// First: on a Node older than engines.node, one line and exit (openapi/node-version.ts).
import './node-version.ts'
import type { Ajv2020, ValidateFunction, ErrorObject } from 'ajv/dist/2020.js'
// The bundled contract as a JSON module (written beside openapi.yaml by `npm run build:openapi`), so
// that this module needs no Node built-in and runs in the browser too (MSW's setupWorker).
import bundledDocument from './openapi.json' with { type: 'json' }

export type { paths, components, operations, PagedOperationId } from './types.ts'
// The stat-key table the contract's enums are built from (spec: POST /shop/stats): the mock computes every key of it.
export { STAT_KEYS, CHARTLESS_STAT_KEYS, type StatKey } from './src/areas/stats.ts'

/** What the validators need of ajv: its JSON Schema 2020-12 class and ajv-formats. */
export interface AjvModules {
  Ajv2020: typeof Ajv2020
  addFormats: (ajv: Ajv2020) => unknown
}

let ajvProvided: AjvModules | undefined

/** Hands the validators ajv where Node's require is not there (the browser entries do, with the bundled one). */
export function provideAjv(modules: AjvModules): void {
  ajvProvided = modules
}

/**
 * ajv and ajv-formats, loaded on the first validation. In Node through require (both are CommonJS),
 * which is synchronous: a server start does not load their ~90 modules (npm run bench:startup).
 */
function ajvModules(): AjvModules {
  if (ajvProvided) return ajvProvided
  const nodeModule = globalThis.process?.getBuiltinModule?.('node:module')
  if (!nodeModule) throw new Error('shoptwin/openapi: ajv is not loaded here: import shoptwin/openapi (or shoptwin/mock) through its browser entry, or call provideAjv')
  const require = nodeModule.createRequire(import.meta.url)
  const formats = require('ajv-formats') as { default?: AjvModules['addFormats'] } & AjvModules['addFormats']
  ajvProvided = { Ajv2020: (require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020, addFormats: formats.default ?? formats }
  return ajvProvided
}

export type JsonSchema = Record<string, unknown>
export type OpenApiDocument = {
  openapi: string
  info: { title: string; version: string }
  paths: Record<string, Record<string, OperationObject>>
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, JsonSchema>; parameters: Record<string, JsonSchema> }
}
export type OperationObject = Record<string, unknown> & {
  operationId: string
  tags: string[]
  summary: string
  parameters?: Array<Record<string, unknown>>
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } }
  responses: Record<string, JsonSchema>
}

export interface ParameterInfo {
  name: string
  in: 'query' | 'path' | 'header'
  required: boolean
  schema: JsonSchema
  style?: string
  /** The value travels as JSON text (`content: application/json` instead of a style), for nested objects. */
  json?: boolean
  /** With `json`: the value may also travel as nested brackets (`x-nested-brackets`: `p[a][from]=x&p[b][]=y`). */
  nestedBrackets?: boolean
}

/** One operation of the contract, with what the mock and the conformance suite need to know. */
export interface OperationInfo {
  operationId: string
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  /** `<METHOD> <path>`, the permission name. */
  permission: string
  tag: string
  summary: string
  specSection: string
  auth: 'none' | 'key' | 'key+shop'
  idempotent: boolean
  enterprise: boolean
  planGate?: 'active-paid' | 'scale'
  inferred: boolean
  aliasOf?: string
  csv: boolean
  paging?: { sizeParam: string; pageParam?: string; defaultSize?: number; max: number; mode: 'clamp' | 'reject'; depthCap?: number }
  successStatus: number
  /** Documented response statuses. */
  statuses: number[]
  query: ParameterInfo[]
  pathParams: ParameterInfo[]
  hasBody: boolean
  requestSchema?: JsonSchema
  operation: OperationObject
}

/** The committed, bundled document (openapi/openapi.json, the JSON twin of openapi/openapi.yaml). */
export function loadDocument(): OpenApiDocument {
  return bundledDocument as unknown as OpenApiDocument
}

function resolveParameter(doc: OpenApiDocument, p: Record<string, unknown>): Record<string, unknown> {
  const $ref = p.$ref as string | undefined
  if (!$ref) return p
  const name = $ref.split('/').pop()!
  return doc.components.parameters[name] as Record<string, unknown>
}

/**
 * The key of the response object that documents a status: the exact status, else its range
 * (`5XX`, OpenAPI 3.1 §4.8.16.2); undefined when the status is not documented.
 */
export function responseKeyOf(op: Pick<OperationInfo, 'operation'>, status: number): string | undefined {
  const responses = op.operation.responses as Record<string, unknown>
  if (responses[String(status)]) return String(status)
  const range = `${Math.floor(status / 100)}XX`
  return responses[range] ? range : undefined
}

/** The vendor extension on the assistant connector's operations (OAuth and MCP, on {mcp_url}). */
export const DOOR_EXTENSION = 'x-shoptwin-door'

/** Whether an operation object is the assistant connector's rather than the API's. */
export const isConnectorOperation = (op: Record<string, unknown>): boolean => op[DOOR_EXTENSION] === 'connector'

/** The operation objects of a path item (its `servers`, `parameters`... are not operations). */
const operationsOf = (item: Record<string, unknown>): Array<[string, OperationObject]> =>
  Object.entries(item).filter(([method]) => HTTP_METHODS.has(method)) as Array<[string, OperationObject]>

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/**
 * Every operation of the API (x-api-key, on {base_url}), in path order. The assistant connector's
 * operations are left out: the mock's pipeline, the MCP tools and the REST coverage are the API's.
 */
export function indexOperations(doc: OpenApiDocument): OperationInfo[] {
  const out: OperationInfo[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of operationsOf(item)) {
      if (isConnectorOperation(op)) continue
      const params = (op.parameters ?? []).map((p) => resolveParameter(doc, p))
      const byIn = (where: string): ParameterInfo[] =>
        params
          .filter((p) => p.in === where)
          .map((p) => {
            const jsonSchema = (p.content as Record<string, { schema: JsonSchema }> | undefined)?.['application/json']?.schema
            const info: ParameterInfo = { name: p.name as string, in: where as ParameterInfo['in'], required: Boolean(p.required), schema: jsonSchema ?? (p.schema as JsonSchema), style: p.style as string | undefined }
            return jsonSchema ? { ...info, json: true, ...(p['x-nested-brackets'] === true ? { nestedBrackets: true } : {}) } : info
          })
      // Exact statuses; a range key (`5XX`) is looked up by responseKeyOf.
      const statuses = Object.keys(op.responses).filter((k) => /^\d{3}$/.test(k)).map(Number)
      const security = op.security as unknown[]
      const shopHeader = params.some((p) => p.name === 'x-shop-id')
      out.push({
        operationId: op.operationId,
        method: method.toUpperCase() as OperationInfo['method'],
        path,
        permission: op['x-permission'] as string,
        tag: op.tags[0],
        summary: op.summary,
        specSection: (op['x-spec-section'] as string) ?? '',
        auth: security.length === 0 ? 'none' : shopHeader ? 'key+shop' : 'key',
        idempotent: params.some((p) => p.name === 'Idempotency-Key'),
        enterprise: op['x-tier'] === 'enterprise',
        planGate: op['x-plan-gate'] as OperationInfo['planGate'],
        inferred: op['x-inferred'] === true,
        aliasOf: op['x-alias-of'] as string | undefined,
        csv: op['x-csv'] === true,
        paging: op['x-paging'] as OperationInfo['paging'],
        successStatus: statuses.find((s) => s < 300)!,
        statuses,
        query: byIn('query'),
        pathParams: byIn('path'),
        hasBody: Boolean(op.requestBody),
        requestSchema: op.requestBody?.content['application/json'].schema,
        operation: op,
      })
    }
  }
  return out
}

/** One operation of the assistant connector (OAuth, MCP, its pages), as documented. */
export interface ConnectorOperationInfo {
  operationId: string
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  /** The standard it follows (`RFC 8414 3`...). */
  standard: string
  operation: OperationObject
}

/** The assistant connector's operations (`x-shoptwin-door: connector`), in path order. */
export function indexConnectorOperations(doc: OpenApiDocument): ConnectorOperationInfo[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    operationsOf(item)
      .filter(([, op]) => isConnectorOperation(op))
      .map(([method, op]) => ({ operationId: op.operationId, method: method.toUpperCase() as ConnectorOperationInfo['method'], path, standard: String(op['x-standard'] ?? ''), operation: op })),
  )
}

const CONTRACT_ID = 'urn:shoptwin:contract'

/** A human sentence from an ajv error: `date_range.from must match format "date"`. */
export function describeAjvError(error: ErrorObject, root = 'body'): string {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
  let where = segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '')
  const params = error.params as Record<string, unknown>
  if (error.keyword === 'required') {
    const missing = params.missingProperty as string
    return `${where ? `${where}.` : ''}${missing} is required`
  }
  if (error.keyword === 'additionalProperties') {
    return `${where ? `${where}.` : ''}${params.additionalProperty as string} is not allowed`
  }
  if (!where) where = root
  // A field a conditional schema rules out (`properties: {video_mode: false}`).
  if (error.keyword === 'false schema') return `${where} is not allowed here`
  // The contract's non-blank text (`pattern: \S`).
  if (error.keyword === 'pattern' && params.pattern === '\\S') return `${where} must not be blank`
  if (error.keyword === 'enum') {
    return `${where} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
  }
  return `${where} ${error.message ?? 'is invalid'}`
}

/** Validators for requests and responses of every operation, compiled once. */
export class ContractValidators {
  readonly doc: OpenApiDocument
  private cache = new Map<string, ValidateFunction>()
  private instance: Ajv2020 | undefined
  private readonly allErrors: boolean

  /** `allErrors`: report every failure, not the first (the mock's traces; the answers name the first). */
  constructor(doc: OpenApiDocument, { allErrors = false }: { allErrors?: boolean } = {}) {
    this.doc = doc
    this.allErrors = allErrors
  }

  /**
   * The ajv instance holding the contract's schemas, made on first use: a server starts without it.
   * The schemas are not checked against JSON Schema's meta-schema here (compiling that costs more than
   * the rest): the contract's own tests validate the document.
   */
  get ajv(): Ajv2020 {
    if (!this.instance) {
      const { Ajv2020, addFormats } = ajvModules()
      this.instance = new Ajv2020({ allErrors: this.allErrors, strict: false, validateFormats: true, coerceTypes: false, validateSchema: false })
      addFormats(this.instance)
      this.instance.addSchema({ $id: CONTRACT_ID, components: { schemas: this.doc.components.schemas } })
    }
    return this.instance
  }

  /** Compiles (once) a schema taken from the document; its `#/components/schemas/...` refs resolve. */
  compile(key: string, schema: JsonSchema): ValidateFunction {
    let fn = this.cache.get(key)
    if (!fn) {
      const rebased = rebaseRefs(schema)
      fn = this.ajv.compile(rebased)
      this.cache.set(key, fn)
    }
    return fn
  }

  requestBody(op: OperationInfo): ValidateFunction | undefined {
    return op.requestSchema ? this.compile(`${op.operationId}:body`, op.requestSchema) : undefined
  }

  /** The schema of a documented response status, or undefined when the status is not documented. */
  response(op: Pick<OperationInfo, 'operationId' | 'operation'>, status: number, mediaType = 'application/json'): ValidateFunction | undefined {
    const key = responseKeyOf(op, status)
    let response = key === undefined ? undefined : (op.operation.responses[key] as Record<string, unknown> | undefined)
    if (!response) return undefined
    if (typeof response.$ref === 'string') response = this.doc.components.responses[(response.$ref as string).split('/').pop()!] as Record<string, unknown>
    const schema = (response.content as Record<string, { schema: JsonSchema }> | undefined)?.[mediaType]?.schema
    return schema ? this.compile(`${op.operationId}:${key}:${mediaType}`, schema) : undefined
  }
}

/** Rewrites local `#/components/...` refs so they point into the registered contract schema. */
function rebaseRefs(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${CONTRACT_ID}${value}` : value,
  )
}

/** The contract loaded once per process: document, operation index and validators. */
export interface Contract {
  doc: OpenApiDocument
  operations: OperationInfo[]
  byId: Map<string, OperationInfo>
  validators: ContractValidators
}

let shared: Contract | undefined

/** A contract from a document already in memory (bundlers, browsers, tests of a modified document). */
export function createContract(doc: OpenApiDocument): Contract {
  const operations = indexOperations(doc)
  return { doc, operations, byId: new Map(operations.map((o) => [o.operationId, o])), validators: new ContractValidators(doc) }
}

export function loadContract(): Contract {
  if (!shared) shared = createContract(loadDocument())
  return shared
}
