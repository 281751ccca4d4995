/**
 * The one way to answer: an ApiResult, and `apiError(status, message)` for every refusal. Steps and
 * handlers either return an ApiError or throw it; the pipeline treats both the same.
 */

/** What a pipeline step or an area handler answers. */
export interface ApiResult {
  status: number
  /** JSON body (ignored when `rawBody` or `rawBytes` is set). */
  body?: unknown
  /** The serialized body, sent byte for byte (idempotent replays). */
  rawBody?: string
  /**
   * `rawBody` already encoded as UTF-8 (cached answers; a handler that writes its body's bytes itself
   * may give only these); the standalone server sends it as is.
   */
  rawBytes?: Uint8Array
  headers?: Record<string, string>
  /** No answer: the connection is dropped (client certification's adversity). */
  dropConnection?: boolean
}

/** An error response `{error: message}` that can be thrown or returned. */
export class ApiError extends Error implements ApiResult {
  readonly status: number
  readonly body: { error: string }
  readonly headers?: Record<string, string>

  constructor(status: number, message: string, headers?: Record<string, string>) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.body = { error: message }
    if (headers) this.headers = headers
  }
}

/** `{error: message}` with a status: the spec's error body (spec: Errors). */
export function apiError(status: number, message: string, headers?: Record<string, string>): ApiError {
  return new ApiError(status, message, headers)
}

/** A success (or any JSON) result. */
export function json(status: number, body: unknown, headers?: Record<string, string>): ApiResult {
  return headers ? { status, body, headers } : { status, body }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError
}

const utf8 = new TextDecoder()

/** The text a result is sent as. */
export function serializeBody(result: ApiResult): string {
  return result.rawBody ?? (result.rawBytes ? utf8.decode(result.rawBytes) : JSON.stringify(result.body ?? null))
}

/** A fetch Response for an ApiResult (MSW handlers return these). */
export function toResponse(result: ApiResult): Response {
  if (result.dropConnection) return Response.error()
  const headers = new Headers(result.headers)
  if (!headers.has('content-type')) headers.set('content-type', 'application/json')
  return new Response(result.status === 204 ? null : serializeBody(result), { status: result.status, headers })
}
