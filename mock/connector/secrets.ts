/**
 * Random token values and their digests, with Web Crypto (Node and browsers alike). The values leave
 * only in the answer that hands them out; the state keeps their SHA-256.
 */
const encoder = new TextEncoder()

// Node's own hash is synchronous and ~50x cheaper than Web Crypto's async digest (a thread-pool round
// trip) on every bearer check; browsers, without node:crypto, use Web Crypto.
const nodeCrypto = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:crypto') as
  | { createHash(algorithm: string): { update(data: string): { digest(encoding: 'hex' | 'base64url'): string } } }
  | undefined

function base64url(bytes: Uint8Array): string {
  let text = ''
  for (const b of bytes) text += String.fromCharCode(b)
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** A new secret: `prefix` + 32 random bytes, base64url. */
export function newSecret(prefix: string): string {
  return `${prefix}${base64url(crypto.getRandomValues(new Uint8Array(32)))}`
}

/** A new random id (UUID v4). */
export const newId = (): string => crypto.randomUUID()

/** The SHA-256 of a secret, hex: what the state keeps. */
export async function digest(secret: string): Promise<string> {
  if (nodeCrypto) return nodeCrypto.createHash('sha256').update(secret).digest('hex')
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(secret)))
  return Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** RFC 7636 4.6: BASE64URL(SHA256(ASCII(code_verifier))). */
export async function s256(verifier: string): Promise<string> {
  if (nodeCrypto) return nodeCrypto.createHash('sha256').update(verifier).digest('base64url')
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(verifier))))
}
