/**
 * Request validation against the contract (ajv 2020-12 + formats, compiled once per operation):
 * path parameters, then the JSON body or the query of a GET form. Failures are 400 `{error}` naming
 * the field and the rule; the spec's exact messages where it gives them (spec: Errors).
 */
import type { ErrorObject } from 'ajv'
import { describeAjvError, type JsonSchema, type OperationInfo } from '../../openapi/index.ts'
import { messages } from '../messages.ts'
import { apiError } from '../respond.ts'
import type { Step } from './compose.ts'
import { coerceQueryValues, parseQuery, schemaResolver } from './query.ts'
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

function recoerce(input: Record<string, any>, op: OperationInfo, resolve: ReturnType<typeof schemaResolver>): Record<string, any> {
  const out = { ...input }
  for (const p of op.query) {
    const value = out[p.name]
    const texts = typeof value === 'string' ? [value] : Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined
    if (texts && p.style !== 'deepObject') out[p.name] = coerceQueryValues(texts, p.schema, resolve)
  }
  return out
}

/**
 * For handlers whose range is required but whose schema cannot say so (it also accepts `dateRange`):
 * spec: Errors: 400 `Missing date_range (from/to)` unless both bounds are present.
 */
export function requireDateRange(input: Record<string, any>, field = 'date_range'): { from: string; to: string } {
  const range = input[field] as { from?: unknown; to?: unknown } | undefined
  if (!range || typeof range !== 'object' || typeof range.from !== 'string' || typeof range.to !== 'string') throw apiError(400, MISSING_DATE_RANGE)
  return { from: range.from, to: range.to }
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

    let input: Record<string, any> = {}
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
        input = parsed as Record<string, any>
      }
      validateInput = validators.requestBody(op)
    } else if (op.query.length) {
      input = parseQuery(ctx.url.searchParams, op.query, schemaResolver(doc))
      validateInput = validators.compile(`${op.operationId}:query`, querySchema(op))
    }

    const normalize = state.normalizers.get(op.operationId) ?? state.normalizers.get(ctx.op.operationId)
    if (normalize) {
      input = normalize(input, op, state.contract)
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
