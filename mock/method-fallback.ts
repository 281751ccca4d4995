/**
 * The MSW side of mock/methods.ts: one handler placed after a group's own, answering what none of
 * them matched on a path the group knows: HEAD as GET without the body, OPTIONS with `Allow`, 405
 * with `Allow` for a method the path does not take (one no path implements too). A path the group
 * does not know passes on to the next handlers (MSW goes on when a resolver returns nothing).
 */
import type { HttpHandler } from 'msw'
import { getResponse, http } from './lib/msw.ts'
import { answeredAs, methodRefusal, preflightHeaders } from './methods.ts'
import { toResponse } from './respond.ts'

export interface MethodFallbackOptions {
  /** The group's base URL (`https://api.example.com`, `*`, or with a path prefix). */
  base: string
  /** The Allow list of a path (relative to the base), undefined for a path the group does not answer. */
  allowOf(path: string): readonly string[] | undefined
  /** The group's own handlers, which answer HEAD as GET. */
  handlers: () => readonly HttpHandler[]
  /**
   * A HEAD on a path whose GET the group answers: that GET's answer, worked out knowing it is a HEAD
   * (the API's operations, one of which records what its GET starts only for a GET). Without it the
   * GET itself is answered and its body dropped (the control API's GETs change nothing).
   */
  head?(request: Request, path: string): Promise<Response | undefined>
  /**
   * Answer OPTIONS as a CORS preflight, with the standalone server's headers (the API's group): a DOM
   * that checks CORS itself, as happy-dom's fetch does, refuses the request otherwise. The control
   * API's group leaves it off, as the server refuses its preflights from other sites.
   */
  cors?: boolean
}

/** The handlers (the base itself too, when it has a path: `/*` does not match it). */
export function methodFallback({ base, allowOf, handlers, head, cors = false }: MethodFallbackOptions): HttpHandler[] {
  const trimmed = base.replace(/\/$/, '')
  const prefix = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? new URL(trimmed).pathname.replace(/\/$/, '') : ''
  const resolver = async ({ request }: { request: Request }) => {
    const pathname = new URL(request.url).pathname
    const path = prefix && pathname.startsWith(prefix) ? pathname.slice(prefix.length) || '/' : pathname
    const allow = allowOf(path)
    if (!allow) return undefined
    const method = request.method.toUpperCase()
    if (method === 'OPTIONS') return new Response(null, { status: 204, headers: cors ? preflightHeaders(allow) : { allow: allow.join(', '), 'access-control-allow-methods': allow.join(', ') } })
    if (method === 'HEAD' && allow.includes('GET')) {
      const answer = head ? await head(request, path) : await getResponse([...handlers()], new Request(request.url, { method: 'GET', headers: request.headers }))
      // A dropped connection (client certification's adversity) stays one.
      return answer && (answer.type === 'error' ? answer : new Response(null, { status: answer.status, headers: answer.headers }))
    }
    // A HEAD is refused as its GET would be (RFC 9110 9.3.2), without the body.
    const refusal = methodRefusal(answeredAs(method), path, allow)
    if (!refusal) return undefined
    return method === 'HEAD' ? new Response(null, { status: refusal.status, headers: { ...refusal.headers, 'content-type': 'application/json' } }) : toResponse(refusal)
  }
  return prefix ? [http.all(trimmed, resolver), http.all(`${trimmed}/*`, resolver)] : [http.all(`${trimmed}/*`, resolver)]
}
