/**
 * Assembles the whole OpenAPI 3.1 document from the area files. Pure: the same sources always
 * give the same document, so a test can check that the committed openapi/openapi.yaml is current.
 */
import { commonSchemas, malformedRequestResponse, malformedRequests, methodNotAllowedResponse, undocumentedMethods } from './common.ts'
import type { ErrorStatus, OperationSpec, QueryParam, Schema } from './dsl.ts'
import { areas } from './areas/index.ts'
import { CONNECTOR_SERVER, connectorDoorPaths, connectorDoorSchemas, connectorSecuritySchemes } from './connector-door.ts'
import { withConnectorExamples } from './connector-examples.ts'
import { RECORDED_NOTE, recordedExamples } from '../examples/recorded.ts'
import { linksOf } from './links.ts'

export interface Area {
  /** Tag name shown in docs and reports. */
  name: string
  description: string
  operations: OperationSpec[]
  schemas: Record<string, Schema>
}

const errorResponseNames: Record<ErrorStatus, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  429: 'TooManyRequests',
}

const errorResponses: Record<string, Schema> = {
  BadRequest: errorResponse('Bad request: validation error, missing or malformed X-Shop-Id, invalid idempotency key, missing date range, or an error the endpoint documents.'),
  Unauthorized: {
    ...errorResponse('Missing or unknown API key. The spec does not show the status or message for this case (spec: Errors); 401 is inferred.'),
    'x-inferred': true,
  },
  Forbidden: errorResponse('The key lacks the route permission or the shop; Enterprise endpoint with a standard key; plan gate (ads: not on an active paid plan; workflow toggle, briefs, community: below Scale); shop of another account.'),
  NotFound: errorResponse('Nothing found for the given identifier (for idempotency lookups: `No stored response for that key`).'),
  Conflict: errorResponse('A concurrent request with the same Idempotency-Key is in flight (up to 60 seconds), or a name is already used.'),
  PreconditionFailed: errorResponse('`expected_updated_at` is older than the resource\'s `updated_at`: re-read and reapply.'),
  PayloadTooLarge: {
    ...errorResponse('The request body is larger than the server accepts (the mock: 10 MB). Not shown by the spec; inferred, as every HTTP server has such a limit.'),
    'x-inferred': true,
  },
  IdempotentBadRequest: {
    ...errorResponse(
      'Bad request, as BadRequest, and on this operation also: `Invalid idempotency key format` (an Idempotency-Key not matching `^[A-Za-z0-9-]{1,128}$`; spec: Errors), and an Idempotency-Key already used on this shop for another operation (inferred, see `x-inferred-causes`).',
    ),
    'x-inferred-causes': [
      {
        cause: 'The Idempotency-Key was first used on this shop for another operation: its cached answer is not this operation\'s, so it is neither replayed nor run again.',
        message: 'Idempotency-Key already used for <METHOD> <path> on this shop; use a new key for another operation',
        spec: 'Idempotency: "With it: response (status and body) cached 24 hours per shop and key; replay returns the original response identically" (the spec does not say what a key reused on another operation gets; 400 is inferred).',
      },
    ],
  },
  ServerError: errorResponse('A server error. The spec says 5xx responses happen (spec: States and transitions, Idempotency: they are not cached, so a retry can succeed); the mock answers 500 for an injected fault or, in strict mode, a response that breaks the contract, and 503 for an injected outage.'),
  TooManyRequests: {
    ...errorResponse('Over 10 requests per second or 1,000,000 per day per key, measured per shop. Back off briefly and retry.'),
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before retrying (inferred: the spec says only "back off briefly").',
        schema: { type: 'integer', minimum: 0 },
        'x-inferred': true,
      },
    },
  },
}

function errorResponse(description: string): Schema {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }
}

/** `{ demo: {summary, description, value} }`: an example recorded from the mock (openapi/examples). */
const recorded = (summary: string, value: unknown): Schema => ({ demo: { summary, description: RECORDED_NOTE, value } })

/** The error responses, each with the answer the mock gives in its case. */
function withErrorExamples(responses: Record<string, Schema>): Record<string, Schema> {
  return Object.fromEntries(
    Object.entries(responses).map(([name, response]) => {
      const example = recordedExamples.errors[name]
      if (!example) throw new Error(`no recorded example for the ${name} response (node openapi/examples/generate.ts)`)
      const content = response.content as Record<string, Schema>
      return [name, { ...response, content: { 'application/json': { ...content['application/json'], examples: recorded(example.summary, example.body) } } }]
    }),
  )
}

/** The error statuses every operation of a kind can return, beside the ones its area names. */
export function errorStatusesOf(op: OperationSpec): ErrorStatus[] {
  const auth = op.auth ?? 'key+shop'
  const statuses = new Set<ErrorStatus>(op.errors ?? [])
  if (auth !== 'none') {
    statuses.add(401)
    statuses.add(403)
    statuses.add(429)
  }
  if (auth === 'key+shop') statuses.add(400)
  if (op.requestBody || op.query?.length || op.pathParams?.length) statuses.add(400)
  if (op.requestBody) statuses.add(413)
  if (op.idempotent) {
    statuses.add(400)
    statuses.add(409)
  }
  return [...statuses].sort((a, b) => a - b)
}

function parameterObject(param: QueryParam, location: 'query' | 'path', example?: { summary: string; value: unknown }): Schema {
  const examples = example ? { examples: recorded(example.summary, example.value) } : {}
  // A JSON-text parameter carries its examples in its media type (OpenAPI 3.1, 4.8.12: content, not schema).
  const out: Schema = { name: param.name, in: location, ...(param.json ? { content: { 'application/json': { schema: param.schema, ...examples } } } : { schema: param.schema, ...examples }) }
  if (location === 'path' || param.required) out.required = true
  if (param.description) out.description = param.description
  if (param.nestedBrackets) out['x-nested-brackets'] = true
  if (param.json) return out
  if (param.style === 'deepObject') {
    out.style = 'deepObject'
    out.explode = true
  }
  return out
}

/** Whether a body schema names required fields (following `#/components/schemas` refs and allOf). */
function hasRequiredFields(schema: Schema, schemas: Record<string, Schema>): boolean {
  const ref = schema.$ref
  if (typeof ref === 'string') return hasRequiredFields(schemas[ref.split('/').pop()!] ?? {}, schemas)
  if (Array.isArray(schema.required) && schema.required.length > 0) return true
  if (Array.isArray(schema.allOf) && (schema.allOf as Schema[]).some((s) => hasRequiredFields(s, schemas))) return true
  // "date_range or dateRange": every branch requires a field, so an empty body cannot be valid either.
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  return Array.isArray(branches) && branches.length > 0 && branches.every((s) => hasRequiredFields(s, schemas))
}

/**
 * The columns of a CSV export: the exported row's fields, an object-valued field (social `metrics`)
 * flattened into its own fields (spec: Conventions 5: `columns`, the fields to export).
 */
function csvColumnsOf(rowSchema: string, schemas: Record<string, Schema>): string[] {
  const row = schemas[rowSchema]
  if (!row) throw new Error(`CSV row schema ${rowSchema} is not defined`)
  return Object.entries(row.properties as Record<string, Schema>).flatMap(([name, field]) => {
    const target = typeof field.$ref === 'string' ? schemas[field.$ref.split('/').pop()!] : undefined
    return target?.type === 'object' ? Object.keys(target.properties as Record<string, Schema>) : [name]
  })
}

/** The body schema with its `columns` (and camelCase twin, if any) limited to the export's columns. */
function withCsvColumns(body: Schema, columns: string[]): Schema {
  const properties = { ...(body.properties as Record<string, Schema>) }
  if (!properties.columns) throw new Error('a CSV operation\'s body has no columns field')
  properties.columns = columnsSchema(properties.columns, columns)
  return { ...body, properties }
}

/** A `columns` field (body or query) whose items are the export's columns. */
const columnsSchema = (schema: Schema, columns: string[]): Schema => ({ ...schema, items: { type: 'string', enum: columns } })

function operationObject(op: OperationSpec, tag: string, schemas: Record<string, Schema>, operations: readonly OperationSpec[]): Schema {
  const auth = op.auth ?? 'key+shop'
  const parameters: Schema[] = []
  if (auth === 'key+shop') parameters.push({ $ref: '#/components/parameters/ShopId' })
  if (op.idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' })
  parameters.push({ $ref: '#/components/parameters/Prefer' })
  const example = recordedExamples.operations[op.operationId]
  if (!example) throw new Error(`${op.operationId}: no recorded example (add its request to openapi/examples/requests.ts, run node openapi/examples/generate.ts)`)
  const { request } = example
  const valueOf = (values: Record<string, unknown> | undefined, name: string) => (values && name in values ? { summary: example.summary, value: values[name] } : undefined)
  for (const p of op.pathParams ?? []) parameters.push(parameterObject(p, 'path', valueOf(request.path, p.name)))
  // A GET form of a CSV export lists its columns as the POST body does (spec: Conventions 5, "`columns` (fields to export)").
  const csvColumns = op.success.csv ? csvColumnsOf(op.success.csv, schemas) : undefined
  for (const p of op.query ?? []) {
    const param = csvColumns && p.name === 'columns' ? { ...p, schema: columnsSchema(p.schema, csvColumns) } : p
    parameters.push(parameterObject(param, 'query', valueOf(request.query, p.name)))
  }

  if (example.response.status !== op.success.status) throw new Error(`${op.operationId}: the recorded example answered ${example.response.status}, not ${op.success.status}`)
  const success: Schema = {
    description: op.success.description ?? 'Success.',
    content: { 'application/json': { schema: op.success.schema, examples: recorded(example.summary, example.response.body) } },
  }
  const links = linksOf(op, operations)
  if (links) success.links = links
  const responses: Record<string, Schema> = { [String(op.success.status)]: success }
  for (const status of errorStatusesOf(op)) {
    const name = status === 400 && op.idempotent ? 'IdempotentBadRequest' : errorResponseNames[status]
    responses[String(status)] = { $ref: `#/components/responses/${name}` }
  }
  responses['5XX'] = { $ref: '#/components/responses/ServerError' }

  const out: Schema = {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [tag],
    'x-permission': `${op.method.toUpperCase()} ${op.path}`,
    'x-spec-section': op.specSection,
    security: auth === 'none' ? [] : [{ ApiKey: [] }],
    parameters,
  }
  if (op.requestBody) {
    // A body whose schema has required fields is required: without it the request cannot be valid.
    const schema = op.success.csv ? withCsvColumns(op.requestBody, csvColumnsOf(op.success.csv, schemas)) : op.requestBody
    const examples = request.body ? { examples: recorded(example.summary, request.body) } : {}
    out.requestBody = { required: hasRequiredFields(op.requestBody, schemas), content: { 'application/json': { schema, ...examples } } }
  }
  out.responses = responses
  if (op.inferred) out['x-inferred'] = true
  if (op.aliasOf) out['x-alias-of'] = op.aliasOf
  if (op.enterprise) out['x-tier'] = 'enterprise'
  if (op.planGate) out['x-plan-gate'] = op.planGate
  if (op.paging) out['x-paging'] = op.paging
  if (op.success.csv) out['x-csv'] = true
  return out
}

/** The bundled OpenAPI 3.1.0 document. */
export function buildDocument(): Schema {
  const paths: Record<string, Record<string, Schema>> = {}
  const schemas: Record<string, Schema> = { ...commonSchemas, ...connectorDoorSchemas }
  const seenIds = new Set<string>()
  const allOperations = areas.flatMap((a) => a.operations)
  for (const area of areas) {
    for (const [name, schema] of Object.entries(area.schemas)) {
      if (schemas[name]) throw new Error(`schema ${name} is defined twice (area ${area.name})`)
      schemas[name] = schema
    }
  }
  for (const area of areas) {
    for (const op of area.operations) {
      if (seenIds.has(op.operationId)) throw new Error(`operationId ${op.operationId} is used twice`)
      seenIds.add(op.operationId)
      const item = (paths[op.path] ??= {})
      if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is defined twice`)
      item[op.method] = operationObject(op, area.name, schemas, allOperations)
    }
  }
  // The connector's endpoints are on its own server ({mcp_url}): each path item names it.
  const allPaths: Record<string, Schema> = { ...paths }
  for (const [path, item] of Object.entries(withConnectorExamples(connectorDoorPaths))) {
    if (allPaths[path]) throw new Error(`${path} is both an API path and a connector path`)
    allPaths[path] = { servers: [CONNECTOR_SERVER], ...item }
  }
  const sortedPaths = Object.fromEntries(Object.keys(allPaths).sort().map((p) => [p, allPaths[p]]))

  return {
    openapi: '3.1.0',
    info: {
      title: 'Shop Analytics, Creator Outreach and Advertising Service API',
      version: '1.0.0',
      description: [
        'A JSON-over-HTTPS API that reads and acts on shops connected to a social-commerce platform.',
        'Every operation names the permission it needs in `x-permission` (`<METHOD> <path>`).',
        'Operations, schemas and parameters marked `x-inferred: true` describe what the service documentation',
        'says is "not shown": their paths or shapes are our inference, kept open so that a real server is not',
        'failed on a detail we invented.',
        'The collation of sorts by a text field is not shown either: the mock sorts text by code point (inferred),',
        'and the conformance suite checks the order of numeric sorts only.',
        'The assistant connector\'s endpoints (OAuth and MCP, tag Connector) are on their own server ({mcp_url}) and',
        'carry `x-shoptwin-door: connector`; they take no API key.',
      ].join(' '),
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: 'https://api.example.com', description: 'Production base address ({base_url} in the documentation).' }],
    tags: areas.map((a) => ({ name: a.name, description: a.description })),
    security: [{ ApiKey: [] }],
    paths: sortedPaths,
    'x-undocumented-methods': undocumentedMethods,
    'x-malformed-requests': malformedRequests,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The API key, created in the dashboard\'s API section.' },
        ...connectorSecuritySchemes,
      },
      parameters: {
        ShopId: {
          name: 'x-shop-id',
          in: 'header',
          required: true,
          description: 'Internal shop id returned as shop_id by GET /account/shops (not the platform\'s own shop id). Missing: 400 `Missing X-Shop-Id header`; malformed: 400 `Invalid shop_id`. The id format is not shown; the mock uses UUIDs (inferred).',
          schema: { type: 'string' },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Optional. With it the response (status and body) is cached 24 hours per shop and key and replayed identically; a concurrent request with the same key gets 409 for up to 60 seconds. Invalid format: 400 `Invalid idempotency key format`. A key already used on this shop for another operation: 400 (inferred; see the IdempotentBadRequest response). The stored answer can be read back with GET /idempotency/{key}.',
          schema: { type: 'string', pattern: '^[A-Za-z0-9-]{1,128}$' },
        },
        Prefer: {
          name: 'Prefer',
          in: 'header',
          required: false,
          description: 'Mock only (as in Prism): `code=<status>` returns that documented response for this request. A real server ignores it.',
          schema: { type: 'string' },
          'x-mock-only': true,
        },
      },
      responses: { ...withErrorExamples(errorResponses), MethodNotAllowed: methodNotAllowedResponse, MalformedRequest: malformedRequestResponse },
      schemas,
    },
  }
}
