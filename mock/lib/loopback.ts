/**
 * DNS rebinding and other origins, for what a server on loopback serves only to its own machine (the
 * MCP endpoint, the control API): a page of another site may still reach it through the browser, by a
 * name that resolves to 127.0.0.1 (its Host header then names that site) or from its own origin (its
 * Origin header names it). MCP transports, Security warning: "validate the Origin header"; the same
 * holds for the control API, which resets the twin and lists what clients sent.
 */

/** A loopback host, with or without its port: `localhost`, `127.x.x.x`, `[::1]`. */
export const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(:\d+)?$/i

/** Why a request with these Host and Origin headers did not come from a loopback page or client (null: it did). */
export function rebindingProblem(host: string | null | undefined, origin: string | null | undefined): string | null {
  if (host != null && !LOOPBACK_HOST.test(host)) return `Invalid Host header: ${host}`
  // `Origin: null` is an opaque origin (a file:// page, a sandboxed frame): no site to name.
  if (origin != null && origin !== 'null') {
    let originHost = ''
    try {
      originHost = new URL(origin).host
    } catch {
      // an unparsable Origin is refused below
    }
    if (!LOOPBACK_HOST.test(originHost)) return `Invalid Origin header: ${origin}`
  }
  return null
}
