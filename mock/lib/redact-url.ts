/**
 * A URL as logs, errors and metrics show it: the password of its userinfo hidden (`redis://:REDACTED@host`,
 * `redis://user:REDACTED@host`), a userinfo without one hidden whole (`redis://REDACTED@host`, where a
 * client reads it as the password). Everything up to the last `@` is userinfo: a password with an `@`
 * or a `/` that was not percent-encoded is hidden too. Pure, no client loaded: the CLI's usage errors
 * use it before any store is.
 */
export function redactStoreUrl(url: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url)?.[0]
  if (!scheme) return url
  const at = url.lastIndexOf('@')
  if (at < scheme.length) return url
  const userinfo = url.slice(scheme.length, at)
  const colon = userinfo.indexOf(':')
  return `${scheme}${colon >= 0 ? `${userinfo.slice(0, colon)}:` : ''}REDACTED${url.slice(at)}`
}
