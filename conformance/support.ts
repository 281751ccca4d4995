/**
 * Small helpers the rules share: dates, error expectations, finding the rows of a listing,
 * comparing bodies and numbers. Nothing here prints.
 */
import type { Reply, RuleContext } from './types.ts'

/** `YYYY-MM-DD` of the UTC day `n` days before today. */
export function daysAgo(n: number, from = new Date()): string {
  const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()))
  d.setUTCDate(d.getUTCDate() - n)
  return d.toISOString().slice(0, 10)
}

/** The last `days` whole days up to yesterday (spec: Conventions 7: ranges are {from, to}). */
export const recentRange = (days = 30) => ({ from: daysAgo(days), to: daysAgo(1) })

/** A short description of an answer for a failure's `received`. */
export function describe(reply: Reply, length = 300): string {
  const text = reply.text.length > length ? `${reply.text.slice(0, length)}…` : reply.text
  return `HTTP ${reply.status} ${text}`
}

/** The `{error}` message of an error body, if the body is one. */
export const errorMessage = (reply: Reply): string | undefined =>
  reply.json && typeof reply.json === 'object' && typeof reply.json.error === 'string' ? reply.json.error : undefined

/**
 * Checks that an answer is an error with the status and, where the spec gives it, the exact message
 * (spec: Errors: error bodies are JSON {error: <message string>}).
 */
export function expectError(t: RuleContext, reply: Reply, status: number, message?: string, what = ''): boolean {
  const got = errorMessage(reply)
  const ok = reply.status === status && got !== undefined && (message === undefined || got === message)
  return t.check(ok, {
    operation: reply.op.permission,
    message: what || `answers ${status}${message ? ` "${message}"` : ''}`,
    expected: `HTTP ${status} {"error": ${message ? JSON.stringify(message) : '<message>'}}`,
    received: describe(reply),
    exchange: reply.exchange,
  })
}

/**
 * Checks that an answer refuses the request (a 4xx with an {error} body) where the spec states the
 * limit but not the status; a refusal with another status than `inferredStatus` is a warning saying so.
 */
export function expectRefusal(t: RuleContext, reply: Reply, inferredStatus: number, what: string, why: string): boolean {
  const ok = t.check(reply.status >= 400 && reply.status < 500 && errorMessage(reply) !== undefined, {
    operation: reply.op.permission,
    message: what,
    expected: `a 4xx {"error": <message>} (HTTP ${inferredStatus} inferred)`,
    received: describe(reply),
    exchange: reply.exchange,
  })
  if (ok && reply.status !== inferredStatus) t.warn({ operation: reply.op.permission, message: `${what} with ${reply.status} (inferred: ${why})`, expected: `HTTP ${inferredStatus}`, received: describe(reply), exchange: reply.exchange })
  return ok
}

/** Checks that an answer is a success (2xx) and returns whether it is. */
export function expectSuccess(t: RuleContext, reply: Reply, what = ''): boolean {
  return t.check(reply.status >= 200 && reply.status < 300 && reply.json !== undefined, {
    operation: reply.op.permission,
    message: what || 'answers with a success',
    expected: `HTTP ${reply.op.successStatus} with a JSON body`,
    received: describe(reply),
    exchange: reply.exchange,
  })
}

export const isSuccess = (reply: Reply) => reply.status >= 200 && reply.status < 300

/**
 * The rows of a listing answer, wherever the endpoint puts them: `results`, `data` as an array,
 * or the first array of objects under `data` (`campaigns`, `creatives`, `sessions`...).
 */
export function rowsOf(json: any): Array<Record<string, any>> {
  if (!json || typeof json !== 'object') return []
  if (Array.isArray(json.results)) return json.results
  if (Array.isArray(json.data)) return json.data
  const data = json.data
  if (data && typeof data === 'object') {
    if (Array.isArray(data.results)) return data.results
    for (const value of Object.values(data)) {
      if (Array.isArray(value) && (value.length === 0 || typeof value[0] === 'object')) return value as Array<Record<string, any>>
    }
  }
  return []
}

/** JSON with object keys sorted, so that equal bodies give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v,
  )
}

export const sameJson = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b)

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/

/**
 * The same answer, up to the moment it was computed: equal JSON where two ISO timestamps a few
 * minutes apart (`analysis_time`, `refreshed_at`...: "now" when each answer was built) count as equal.
 */
export function equivalentJson(a: unknown, b: unknown, toleranceMs = 5 * 60_000): boolean {
  if (typeof a === 'string' && typeof b === 'string' && a !== b && ISO_TIMESTAMP.test(a) && ISO_TIMESTAMP.test(b)) {
    return Math.abs(Date.parse(a) - Date.parse(b)) <= toleranceMs
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => equivalentJson(v, b[i], toleranceMs))
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keysA = Object.keys(a).sort()
    const keysB = Object.keys(b).sort()
    return keysA.join() === keysB.join() && keysA.every((k) => equivalentJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], toleranceMs))
  }
  return a === b
}

/** Numbers equal up to rounding of the server's (two decimals, or 0.1% relative). */
export function near(a: number, b: number): boolean {
  return Math.abs(a - b) <= Math.max(0.006, Math.abs(b) * 1e-3)
}

export const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/** A string of the same shape as `id` (digits for digits, letters for letters) that is another id. */
export function lookalikeId(id: string): string {
  const swapped = [...id].map((c) => {
    if (/[0-9]/.test(c)) return String((Number(c) + 7) % 10)
    if (/[a-f]/.test(c)) return String.fromCharCode(((c.charCodeAt(0) - 97 + 3) % 6) + 97)
    if (/[A-F]/.test(c)) return String.fromCharCode(((c.charCodeAt(0) - 65 + 3) % 6) + 65)
    if (/[g-z]/.test(c)) return String.fromCharCode(((c.charCodeAt(0) - 103 + 5) % 20) + 103)
    return c
  })
  return swapped.join('')
}
