/**
 * Request validation against the contract (ajv 2020-12 + formats, compiled once per operation):
 * path parameters, then the JSON body or the query of a GET form. Failures are 400 `{error}` naming
 * the field and the rule; the spec's exact messages where it gives them (spec: Errors).
 */
import type { ErrorObject, ValidateFunction } from 'ajv'
import { describeAjvError, type JsonSchema, type OperationInfo } from '../../openapi/index.ts'
import { messages } from '../messages.ts'
import { apiError } from '../respond.ts'
import type { Step } from './compose.ts'
import { coerceQueryValues, malformedJsonParameter, parseQuery, schemaResolver } from './query.ts'
import { validationDecision, validationPassed } from '../trace/decisions.ts'
import { allFailures } from '../trace/validation.ts'

export const MISSING_DATE_RANGE = messages.missingDateRange
export const INVALID_IDEMPOTENCY_KEY = messages.invalidIdempotencyKey

/** The object schema a GET form's query is validated with: its declared parameters. */
export function querySchema(op: OperationInfo): JsonSchema {
  const properties = Object.fromEntries(op.query.map((p) => [p.name, p.schema]))
  const required = op.query.filter((p) => p.required).map((p) => p.name)
  return { type: 'object', properties, ...(required.length ? { required } : {}) }
}

/** spec: Errors: a missing (or partial) required date range has one exact message. */
function isMissingDateRange(error: ErrorObject): boolean {
  if (error.keyword !== 'required') return false
  const missing = (error.params as { missingProperty?: string }).missingProperty
  if (missing === 'date_range' || missing === 'dateRange') return true
  return /(^|\/)(date_range|dateRange)$/.test(error.instancePath) && (missing === 'from' || missing === 'to')
}

function messageOf(error: ErrorObject, root: string): string {
  return isMissingDateRange(error) ? MISSING_DATE_RANGE : describeAjvError(error, root)
}

function recoerce(input: Record<string, unknown>, op: OperationInfo, resolve: ReturnType<typeof schemaResolver>): Record<string, unknown> {
  const out = { ...input }
  for (const p of op.query) {
    const value = out[p.name]
    const texts = typeof value === 'string' ? [value] : Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined
    if (texts && p.style !== 'deepObject' && !p.json) out[p.name] = coerceQueryValues(texts, p.schema, resolve)
  }
  return out
}

/**
 * For handlers whose range is required but whose schema cannot say so (it also accepts `dateRange`):
 * spec: Errors: 400 `Missing date_range (from/to)` unless both bounds are present.
 */
export function requireDateRange(input: Record<string, unknown>, field = 'date_range'): { from: string; to: string } {
  const range = input[field] as { from?: unknown; to?: unknown } | undefined
  if (!range || typeof range !== 'object' || typeof range.from !== 'string' || typeof range.to !== 'string') throw apiError(400, MISSING_DATE_RANGE)
  return { from: range.from, to: range.to }
}

/** A key as the normalizers fold its spellings: `pageSize` and `page_size` are one place. */
const fold = (key: string | number) => String(key).toLowerCase().replaceAll('_', '')

/**
 * What a normalized input holds: its objects by identity, its other values with the place they are
 * at (spellings folded). A scalar by value alone would pass a dropped `pageSize: 101` for the
 * `csv_limit: 101` beside it.
 */
class Kept {
  private readonly objects = new Set<unknown>()
  private readonly values = new Set<string>()

  constructor(input: unknown) {
    this.add(input, '')
  }
  private add(value: unknown, at: string): void {
    if (value && typeof value === 'object') {
      this.objects.add(value)
      for (const [key, v] of Object.entries(value)) this.add(v, `${at}/${fold(key)}`)
    } else this.values.add(`${at}=${JSON.stringify(value)}`)
  }
  has(value: unknown, path: Array<string | number>): boolean {
    if (value && typeof value === 'object') return this.objects.has(value)
    return this.values.has(`${path.map((key) => `/${fold(key)}`).join('')}=${JSON.stringify(value)}`)
  }
}

/**
 * The first schema error of a part of `sent` that is not in the normalized input (`kept`), checked
 * against the schema declared at its place; parts without a declared schema are looked into.
 */
function droppedPartProblem(
  sent: unknown,
  kept: Kept,
  op: OperationInfo,
  resolve: ReturnType<typeof schemaResolver>,
  compile: (path: string, schema: JsonSchema) => ValidateFunction,
  path: Array<string | number> = [],
): ErrorObject | undefined {
  if (path.length && kept.has(sent, path)) return undefined
  const schema = path.length ? declaredAt(op, path, resolve) : undefined
  if (schema) {
    const check = compile(path.join('/'), schema)
    return check(sent) ? undefined : { ...check.errors![0]!, instancePath: `/${path.join('/')}${check.errors![0]!.instancePath}` }
  }
  if (!sent || typeof sent !== 'object') return undefined
  for (const [key, value] of Object.entries(sent)) {
    const found = droppedPartProblem(value, kept, op, resolve, compile, [...path, Array.isArray(sent) ? Number(key) : key])
    if (found) return found
  }
  return undefined
}

/** The schema the contract declares at a path of the body (or of a GET form's query), if any. */
function declaredAt(op: OperationInfo, path: Array<string | number>, resolve: ReturnType<typeof schemaResolver>): JsonSchema | undefined {
  const [first, ...rest] = path
  const within = (schema: JsonSchema | undefined, steps: Array<string | number>, depth = 0): JsonSchema | undefined => {
    if (!schema || depth > 12) return undefined
    if (!steps.length) return schema
    const s = resolve(schema)
    const [step, ...more] = steps
    const properties = s.properties as Record<string, JsonSchema> | undefined
    // Own properties only: a sent `constructor` or `__proto__` is not declared by Object.prototype.
    const direct = typeof step === 'number' ? (s.items as JsonSchema | undefined) : properties && Object.hasOwn(properties, step!) ? properties[step!] : undefined
    if (direct) return within(direct, more, depth + 1)
    for (const part of [...((s.allOf ?? []) as JsonSchema[]), ...((s.anyOf ?? []) as JsonSchema[]), ...((s.oneOf ?? []) as JsonSchema[])]) {
      const found = within(part, steps, depth + 1)
      if (found) return found
    }
    return undefined
  }
  if (op.hasBody) return within(op.requestSchema, path)
  return within(op.query.find((p) => p.name === first)?.schema, rest)
}

/** Parses and validates the request: sets `ctx.input`. */
export const validate = (): Step =>
  function validate(ctx, next) {
    const { calledOp: op, state } = ctx
    const { validators, doc } = state.contract

    for (const p of op.pathParams) {
      const value = ctx.params[p.name]
      const check = validators.compile(`${op.operationId}:param:${p.name}`, p.schema)
      if (value === undefined || !check(value)) {
        // spec: Idempotency: the key path segment must match ^[A-Za-z0-9-]{1,128}$.
        const message = op.path.startsWith('/idempotency/') ? INVALID_IDEMPOTENCY_KEY : check.errors?.[0] ? describeAjvError(check.errors[0], p.name) : `${p.name} is required`
        ctx.trace?.decide(validationDecision([], message))
        throw apiError(400, message)
      }
    }

    let input: Record<string, unknown> = {}
    let validateInput
    if (op.hasBody) {
      if (ctx.bodyText.trim() !== '') {
        let parsed: unknown
        try {
          parsed = JSON.parse(ctx.bodyText)
        } catch (error) {
          ctx.trace?.decide(validationDecision([], `Malformed JSON body: ${(error as Error).message}`))
          throw apiError(400, `Malformed JSON body: ${(error as Error).message}`)
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
          ctx.trace?.decide(validationDecision([], 'body must be a JSON object'))
          throw apiError(400, 'body must be a JSON object')
        }
        input = parsed as Record<string, unknown>
      }
      validateInput = validators.requestBody(op)
    } else if (op.query.length) {
      const malformed = malformedJsonParameter(ctx.url.searchParams, op.query)
      if (malformed) {
        const message = `Malformed JSON in query parameter ${malformed.name}: ${malformed.message}`
        ctx.trace?.decide(validationDecision([], message))
        throw apiError(400, message)
      }
      input = parseQuery(ctx.url.searchParams, op.query, schemaResolver(doc))
      validateInput = validators.compile(`${op.operationId}:query`, querySchema(op))
    }

    const normalize = state.normalizers.get(op.operationId) ?? state.normalizers.get(ctx.op.operationId)
    if (normalize) {
      const sent = input
      input = normalize(input, op, state.contract)
      // A field given in two spellings (`date_range` and `dateRange`, `page_size` and `pageSize`,
      // `date_range` and `date_from`, spark's `search_params.post_time` and `post_time_to`) keeps one;
      // a part of the request the normalizer dropped is still checked against the schema the contract
      // declares at its place (issue 24: the contract refuses it, so the twin does). Parts it kept,
      // renamed or not, are checked below with the rest.
      const problem = droppedPartProblem(sent, new Kept(input), op, schemaResolver(doc), (path, schema) => validators.compile(`${op.operationId}:field:${path}`, schema))
      if (problem) throw apiError(400, messageOf(problem, op.hasBody ? 'body' : 'query'))
      // A query key renamed by the normalizer (pageSize → page_size) is still text: coerce it now.
      if (!op.hasBody) input = recoerce(input, op, schemaResolver(doc))
    }

    if (validateInput && !validateInput(input)) {
      const root = op.hasBody ? 'body' : 'query'
      const message = messageOf(validateInput.errors![0], root)
      // The trace lists every failing field; the answer keeps naming the first.
      ctx.trace?.decide(validationDecision(op.hasBody ? allFailures(state.contract, `${op.operationId}:body`, op.requestSchema!, input, ctx.bodyText.length, root, messageOf) : allFailures(state.contract, `${op.operationId}:query`, querySchema(op), input, ctx.url.search.length, root, messageOf), message))
      throw apiError(400, message)
    }
    ctx.trace?.decide(validationPassed)
    ctx.input = input
    return next()
  }
