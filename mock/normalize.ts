/**
 * Input normalizers areas can use for endpoints that "accept snake_case and camelCase keys"
 * (spec: Conventions 4) and legacy key aliases.
 */
import type { InputNormalizer } from './context.ts'

export const snakeCase = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/**
 * Renames top-level camelCase keys to snake_case, and `aliases` (`sortDir` → `sort_direction`,
 * `video_id` → `video_ids`) to their canonical names. A canonical key already present wins.
 */
export function acceptCamelCase(aliases: Record<string, string> = {}): InputNormalizer {
  return (input) => {
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(input)) if (!(key in aliases) && !/[A-Z]/.test(key)) out[key] = value
    for (const [key, value] of Object.entries(input)) {
      const target = aliases[key] ?? (/[A-Z]/.test(key) ? snakeCase(key) : undefined)
      if (target !== undefined && !(target in out)) out[target] = value
    }
    return out
  }
}
