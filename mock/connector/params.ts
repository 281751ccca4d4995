/**
 * How the connector's OAuth endpoints read a request (RFC 6749 3.1, 3.2): a body of the one media
 * type the endpoint takes, each parameter at most once, a parameter sent without a value as if
 * omitted, the ones the endpoint does not read ignored. And how a refusal words what it names: an
 * `error_description` holds only the characters RFC 6749 5.2 allows (no `"`, no `\`, ASCII), so it
 * fits a redirect URI, a JSON body and a WWW-Authenticate quoted-string alike.
 */

export const FORM_TYPE = 'application/x-www-form-urlencoded'

/** The request's media type, lower case, without its parameters (`charset`); '' without a Content-Type. */
export const mediaTypeOf = (request: Request): string => (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()

/** What a request's media type is called in a refusal. */
const typeName = (type: string): string => (type ? oauthText(type) : 'a body without Content-Type')

/** A refusal naming the media type an endpoint takes and the one it got: `The token request must be application/x-www-form-urlencoded (RFC 6749 4.1.3), not application/json`. */
export const mediaTypeProblem = (request: Request, what: string, type: string, rfc: string | null): string | null => {
  const got = mediaTypeOf(request)
  return got === type ? null : `${what} must be ${type}${rfc ? ` (${rfc})` : ''}, not ${typeName(got)}`
}

/** The parameters an endpoint reads, as RFC 6749 3.1 has them read. */
export interface OAuthParams {
  /** The value, or null when absent or sent without a value. */
  get(name: string): string | null
  /** Every value given (a repeatable parameter), empty ones left out. */
  getAll(name: string): string[]
}

/**
 * Reads `reads` from `source`: `{ repeated }` names the first of them given more than once with a value
 * (RFC 6749 3.1: "MUST NOT be included more than once"), except those in `repeatable` (RFC 8707's
 * `resource`, the consent form's `shop` and `tool`). A parameter without a value counts as omitted.
 */
export function readParams(source: URLSearchParams, reads: readonly string[], repeatable: readonly string[] = []): { params: OAuthParams; repeated: string | null } {
  const values = new Map<string, string[]>()
  for (const [name, value] of source) if (value !== '' && reads.includes(name)) values.set(name, [...(values.get(name) ?? []), value])
  const repeated = reads.find((name) => !repeatable.includes(name) && (values.get(name)?.length ?? 0) > 1) ?? null
  return { params: { get: (name) => values.get(name)?.[0] ?? null, getAll: (name) => values.get(name) ?? [] }, repeated }
}

/** The refusal of a repeated parameter. */
export const repeatedProblem = (name: string): string => `${name} is given more than once (RFC 6749 3.1: a parameter is sent at most once)`

/** The first of `reads` found in the URL's query of a request whose parameters go in its body. */
export const paramInQuery = (url: string, reads: readonly string[]): string | null => {
  const query = new URL(url).searchParams
  return reads.find((name) => query.has(name)) ?? null
}

/**
 * Text an `error_description` may hold (RFC 6749 5.2: %x20-21 / %x23-5B / %x5D-7E): a double quote
 * becomes a single one, any other character outside the set a `?`.
 */
export const oauthText = (text: string): string => text.replace(/"/g, "'").replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '?')

/** A value the request gave, quoted in a refusal: at most 60 characters. */
export const quoted = (value: string): string => `'${value.length > 60 ? `${value.slice(0, 57)}...` : value}'`
