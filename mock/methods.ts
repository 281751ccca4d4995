/**
 * Which methods a path answers, decided before anything builds a fetch `Request` (undici refuses
 * TRACE, CONNECT and TRACK, so a Request built first turned them into a 500). One policy for the
 * standalone server, the MSW handlers (Node and browser builds), the control API and the connector:
 *
 * - a known path called with a method it does not document gets 405 `{error}` naming the method, with
 *   `Allow` (RFC 9110 15.5.6: "The origin server MUST generate an Allow header field in a 405
 *   response"). That holds for the methods no path implements too (TRACE, CONNECT, WebDAV's, any other
 *   token): RFC 9110 9.1 prefers 501 for those ("SHOULD respond with the 501 (Not Implemented) status
 *   code"), but a 5xx says "the server failed" to every client, retry loop and fuzzer (issue 24: no
 *   method gives a 5xx), and 405 with Allow tells the client what to send instead;
 * - a path nobody knows stays 404, whatever the method;
 * - HEAD is answered wherever GET is, as GET without its body (RFC 9110 9.3.2), and changes nothing
 *   (9.2.1: an operation whose GET starts something works out what it would answer, mock/context.ts's
 *   `changesState`); where GET is refused, HEAD is refused as GET is (`answeredAs`);
 * - OPTIONS on a known path answers 204 with `Allow` (RFC 9110 9.3.7) and the CORS preflight headers.
 *
 * The spec says none of this (it documents only its own methods): everything here is inferred from
 * HTTP itself. Pure: no node imports, so the browser build shares it.
 */
import { apiError, type ApiError } from './respond.ts'

/**
 * The CORS headers of the standalone server's answers, and of the API's OPTIONS preflight answers in
 * the server and in the MSW handlers alike: a page of another origin may call the twin (Prism does the
 * same). Under MSW they matter where the test's DOM enforces CORS itself: happy-dom's `fetch` (vitest's
 * `environment: 'happy-dom'`) sends a preflight OPTIONS, which MSW's interceptor hands to these handlers,
 * and refuses the request ("Cross-Origin Request Blocked") unless the answer allows the page's origin.
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'content-type, x-api-key, x-shop-id, idempotency-key, prefer',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-expose-headers': 'retry-after, idempotent-replayed, x-shoptwin-trace',
}

/** The answer to a CORS preflight (OPTIONS) on a path taking `allow`: 204's headers, as the standalone server gives them. */
export function preflightHeaders(allow: readonly string[]): Record<string, string> {
  return { ...CORS_HEADERS, allow: allow.join(', '), 'access-control-allow-methods': allow.join(', '), 'access-control-max-age': '600' }
}

/** The methods a fetch Request can carry and some path of this server could take; any other is refused before a Request is built. */
export const RECOGNISED_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/** The `Allow` list of a path documenting `methods`: HEAD beside GET, OPTIONS always, in a fixed order. */
export function allowedMethods(methods: Iterable<string>): string[] {
  const set = new Set([...methods].map((m) => m.toUpperCase()))
  if (set.has('GET')) set.add('HEAD')
  set.add('OPTIONS')
  return [...set].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b))
}

/** The 405 for `method` on a known path taking `allow`. */
export function methodNotAllowed(method: string, path: string, allow: readonly string[]): ApiError {
  const what = RECOGNISED_METHODS.has(method) ? 'is not allowed on' : 'is not implemented by this server, nor allowed on'
  return apiError(405, `Method ${method} ${what} ${path}; allowed: ${allow.join(', ')}`, { allow: allow.join(', ') })
}

/**
 * The refusal for `method` on a path taking `allow` (undefined: nobody knows the path), or undefined
 * when the request may go on: 405 with Allow on a known path that does not take the method; 404 for a
 * method no path implements on an unknown path (it must not reach a fetch Request either).
 */
export function methodRefusal(method: string, path: string, allow: readonly string[] | undefined): ApiError | undefined {
  if (!allow) return RECOGNISED_METHODS.has(method) ? undefined : apiError(404, `No operation at ${method} ${path}`)
  return allow.includes(method) ? undefined : methodNotAllowed(method, path, allow)
}

/**
 * The method a request is answered as: HEAD as GET (RFC 9110 9.3.2), its refusals included, so that
 * the Content-Length a HEAD's answer carries is the GET's (8.6: a server MUST NOT send another).
 */
export const answeredAs = (method: string): string => (method === 'HEAD' ? 'GET' : method)

/** Whether a method token can be named in an answer (RFC 9110 5.6.2 token). */
export const isMethodToken = (method: string): boolean => /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(method)

/**
 * An index of path templates (`/idempotency/{key}`) to the methods each documents; `{name}` matches
 * one segment, a trailing slash is ignored as the routers ignore it.
 */
export interface PathMethods {
  /** The `Allow` list of the path, or undefined for an unknown path. */
  allowOf(path: string): string[] | undefined
}

export function pathMethods(entries: Iterable<readonly [template: string, method: string]>): PathMethods {
  const exact = new Map<string, Set<string>>()
  const patterns = new Map<string, { regex: RegExp; methods: Set<string> }>()
  for (const [template, method] of entries) {
    if (template.includes('{')) {
      let entry = patterns.get(template)
      if (!entry) {
        const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')
        patterns.set(template, (entry = { regex: new RegExp(`^${source}/?$`), methods: new Set() }))
      }
      entry.methods.add(method.toUpperCase())
    } else {
      if (!exact.has(template)) exact.set(template, new Set())
      exact.get(template)!.add(method.toUpperCase())
    }
  }
  const allow = new Map<Set<string>, string[]>()
  const allowOfSet = (methods: Set<string>) => allow.get(methods) ?? (allow.set(methods, allowedMethods(methods)), allow.get(methods)!)
  return {
    allowOf(path) {
      const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
      const found = exact.get(trimmed) ?? [...patterns.values()].find((p) => p.regex.test(path))?.methods
      return found ? allowOfSet(found) : undefined
    },
  }
}
