/**
 * DNS rebinding and other origins, for what a server on loopback serves only to its own machine (the
 * MCP endpoint, the control API): a page of another site may still reach it through the browser, by a
 * name that resolves to 127.0.0.1 (its Host header then names that site) or from its own origin (its
 * Origin header names it). MCP transports, Security warning: "validate the Origin header"; the same
 * holds for the control API, which resets the twin and lists what clients sent.
 */

/**
 * The loopback hosts: `localhost`, an IPv4 address of 127.0.0.0/8 (all loopback: RFC 1122 3.2.1.3 (g),
 * RFC 6890), `[::1]`. Not `[::ffff:127.0.0.1]`: an IPv4-mapped address is an IPv4 address written as
 * IPv6 (RFC 4291 2.5.5.2), not a destination of its own (RFC 6890: ::ffff:0:0/96 is not forwardable).
 */
const LOOPBACK_NAME = String.raw`localhost|127(?:\.\d{1,3}){3}|\[::1\]`

/** A loopback host, with or without its port: `localhost`, `127.x.x.x`, `[::1]`. */
export const LOOPBACK_HOST = new RegExp(`^(?:${LOOPBACK_NAME})(?::\\d+)?$`, 'i')

const LOOPBACK_NAME_ALONE = new RegExp(`^(?:${LOOPBACK_NAME})$`, 'i')

/**
 * Whether a URL's host, as written, is a loopback host written the one way every URL parser reads
 * alike (`127.0.0.1`, `127.0.0.2`, `[::1]`, `localhost`): `127.1`, `127.0.0.01` or `2130706433` are
 * 127.0.0.1 to the WHATWG parser but names to RFC 3986 3.2.2 (its IPv4address has four decimal octets
 * without leading zeros), and `[0:0::1]` is `[::1]` spelled otherwise.
 */
export function isLoopbackHostLiteral(host: string): boolean {
  return LOOPBACK_NAME_ALONE.test(host) && URL.parse(`http://${host}/`)?.hostname === host.toLowerCase()
}

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
