/**
 * The service document (`../shared/spec/service-api.md` beside the repository: the only document
 * about the service). Found by walking up from the repository, so a worktree nested deeper finds it
 * too; SHOPTWIN_SPEC names another copy.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const RELATIVE = join('shared', 'spec', 'service-api.md')

/** The path of the service document, or undefined when none is beside the repository. */
export function specPath(): string | undefined {
  if (process.env.SHOPTWIN_SPEC) return process.env.SHOPTWIN_SPEC
  let dir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
  for (let up = 0; up < 4; up++) {
    dir = dirname(dir)
    if (existsSync(join(dir, RELATIVE))) return join(dir, RELATIVE)
  }
  return undefined
}

/** Whitespace runs become one space: a quote may wrap differently than the document. */
export const normaliseWhitespace = (text: string): string => text.replace(/\s+/g, ' ').trim()

/** The document's text, whitespace normalised. Throws when it cannot be found. */
export function specText(): string {
  const path = specPath()
  if (!path) throw new Error(`the service document was not found: expected ../${RELATIVE} beside the repository (or SHOPTWIN_SPEC)`)
  return normaliseWhitespace(readFileSync(path, 'utf8'))
}
