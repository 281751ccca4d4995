/**
 * Errors of the spec server. Error bodies are JSON `{error: <message string>}` (spec: Errors); a
 * step or handler that refuses throws `apiError(...)`, and one place (index.ts) turns it, or any
 * unexpected exception, into the answer.
 */
export class ApiError extends Error {
  readonly status: number
  readonly headers: Record<string, string>
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.headers = headers
  }
}

/** An error answer to throw: `throw apiError(400, 'Missing X-Shop-Id header')`. */
export const apiError = (status: number, message: string, headers: Record<string, string> = {}) => new ApiError(status, message, headers)
