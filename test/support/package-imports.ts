/**
 * The packages a shipped module loads, and which of them the package does not declare. npm hoists a
 * dependency's dependencies next to it, so an import of a package shoptwin never declared works there
 * by luck; pnpm's strict node_modules and Yarn's Plug'n'Play give a package only what its own
 * package.json names, and the same import fails there ("phantom dependency"). Read from the text, so
 * it also sees what runs only on some paths: computed-path commands, a `createRequire(...)('x')`, a
 * type import in a declaration file (a client's tsc with skipLibCheck false resolves it).
 */
import { isBuiltin } from 'node:module'

/** The forms a module names another by, on its own text (comments are told apart by the line). */
const FORMS: RegExp[] = [
  // import x from 'p', import { a,\n b } from 'p', import type …, export … from 'p' (statements start a line).
  /^[ \t]*(?:import|export)\b[^'"`;]*?\bfrom\s*(['"])([^'"\n]+)\1/gm,
  // import 'p' (a module loaded for its effects).
  /^[ \t]*import\s*(['"])([^'"\n]+)\1/gm,
  // import('p'): a dynamic import, or a type's import in a declaration.
  /\bimport\(\s*(['"])([^'"\n]+)\1\s*[,)]/g,
  // require('p'), require.resolve('p'), and a require made on the spot: createRequire(import.meta.url)('p').
  /\brequire(?:\.resolve)?\(\s*(['"])([^'"\n]+)\1\s*\)/g,
  /\bcreateRequire\((?:[^()]|\([^()]*\))*\)\(\s*(['"])([^'"\n]+)\1\s*\)/g,
]

/** Whether `index` in `text` is inside a line comment or a comment block's line (` * …`, `// …`, `/* …`). */
function inComment(text: string, index: number): boolean {
  const lineStart = text.lastIndexOf('\n', index - 1) + 1
  const before = text.slice(lineStart, index)
  return /^\s*(?:\*|\/\*|\/\/)/.test(before) || /(?:^|[^:])\/\//.test(before)
}

/** The module specifiers a module's text names that are neither relative nor absolute (nor URLs). */
export function bareSpecifiers(text: string): string[] {
  const found = new Set<string>()
  for (const form of FORMS) {
    for (const match of text.matchAll(form)) {
      const specifier = match[2]!
      if (/^(?:\.{1,2}\/|\/|[a-z][a-z0-9+.-]*:\/\/)/i.test(specifier) || specifier === '.' || specifier === '..') continue
      if (inComment(text, match.index!)) continue
      found.add(specifier)
    }
  }
  return [...found].sort()
}

/** The package a bare specifier is in: `@scope/name` or `name` (a subpath and `node:` aside). */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
}

export interface Manifest {
  name: string
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  devDependencies?: Record<string, string>
}

export interface Undeclared {
  file: string
  specifier: string
  /** What the manifest says of the package: nothing, or only a devDependency (which a consumer never gets). */
  why: 'not declared' | 'a devDependency only'
}

/**
 * Each import in `files` (path → text) of a package that is not a Node builtin, the package itself,
 * or one of its dependencies, peerDependencies or optionalDependencies.
 */
export function undeclaredImports(files: Map<string, string>, manifest: Manifest): Undeclared[] {
  const declared = new Set([manifest.name, ...Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies })])
  const problems: Undeclared[] = []
  for (const [file, text] of files) {
    for (const specifier of bareSpecifiers(text)) {
      if (isBuiltin(specifier) || declared.has(packageOf(specifier))) continue
      problems.push({ file, specifier, why: manifest.devDependencies?.[packageOf(specifier)] ? 'a devDependency only' : 'not declared' })
    }
  }
  return problems
}

/** One line per problem, for a test's failure message. */
export const describeUndeclared = (problems: Undeclared[]): string =>
  problems.map((p) => `${p.file} imports '${p.specifier}': ${p.why} (add it to dependencies or peerDependencies, or keep the file out of the package)`).join('\n')
