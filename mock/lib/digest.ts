/** FNV-1a: a dependency-free hash, so that the mock runs in browsers too (no node:crypto). */

/** 32-bit FNV-1a of some text, as an unsigned number. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/** 32-bit FNV-1a as 8 hex digits. */
export const hex32 = (text: string, seed?: number): string => fnv1a(text, seed).toString(16).padStart(8, '0')

/** A deterministic hex digest of some text (`length` up to 32). */
export function digest(text: string, length = 16): string {
  let out = ''
  for (let seed = 0x811c9dc5; out.length < length; seed = (seed + 0x9e3779b9) >>> 0) out += hex32(text, seed)
  return out.slice(0, length)
}
