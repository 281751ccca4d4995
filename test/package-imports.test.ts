/**
 * Every package the shipped code imports is one shoptwin declares (a dependency or peer) or a Node
 * builtin: pnpm's strict node_modules and Yarn's Plug'n'Play let a package load only those, where npm's
 * hoisting hides an undeclared ("phantom") one. The shipped code is what the build compiles
 * (tsconfig.build.json, as tsc lists it: every file of dist/) and bin/. The installs themselves, with
 * pnpm and Yarn, are test/consumer-pm.install-test.ts (`npm run test:install`), which runs the same check on
 * the packed tarball's files.
 */
import { execFile } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import pkg from '../package.json' with { type: 'json' }
import { bareSpecifiers, describeUndeclared, packageOf, undeclaredImports } from './support/package-imports.ts'
import { repositoryRoot } from './support/working-tree.ts'

/** The repository's files the package build compiles into dist/ (tsc's own list), and bin/. */
async function shippedSources(): Promise<Map<string, string>> {
  const tsc = join(repositoryRoot, 'node_modules', '.bin', 'tsc')
  const { stdout } = await promisify(execFile)(tsc, ['-p', 'tsconfig.build.json', '--listFilesOnly'], { cwd: repositoryRoot, maxBuffer: 16 * 1024 * 1024 })
  const compiled = stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((path) => path.startsWith(repositoryRoot) && !path.split(sep).includes('node_modules') && /\.[cm]?[jt]s$/.test(path))
  const bin = (await readdir(join(repositoryRoot, 'bin'))).map((file) => join(repositoryRoot, 'bin', file))
  const files = new Map<string, string>()
  for (const path of [...compiled, ...bin]) files.set(relative(repositoryRoot, path), await readFile(path, 'utf8'))
  return files
}

describe('the shipped code imports only what package.json declares (phantom dependencies)', () => {
  it('every bare import of the build\'s files and bin/ is a Node builtin, shoptwin itself, a dependency or a peer', async () => {
    const files = await shippedSources()
    expect(files.size).toBeGreaterThan(200)
    expect([...files.keys()]).toEqual(expect.arrayContaining(['bin/shoptwin.mjs', 'mock/index.ts', 'mock/cli.ts', 'proxy/cli.ts', 'conformance/certify-client/cli.ts']))
    const problems = undeclaredImports(files, pkg)
    expect(problems, describeUndeclared(problems)).toEqual([])
    // The scan reads what the code loads: each dependency and peer is found (one it did not find is
    // dead weight in every install, or a form of import the scan misses).
    const used = new Set([...files.values()].flatMap((text) => bareSpecifiers(text).map(packageOf)))
    for (const name of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })) expect(used, `${name} is imported by the shipped code`).toContain(name)
  }, 60_000)

  it('the scan finds each form of import and no import in a comment', () => {
    const text = [
      "import a from 'dep-a'",
      "import {\n  b,\n  type C,\n} from '@scope/dep-b/sub/path.js'",
      "import type { D } from 'dep-d'",
      "export { e } from 'dep-e'",
      "export * from 'dep-e2'",
      "import 'dep-f/register'",
      "const g = await import('dep-g')",
      "type H = import('dep-h').H",
      "const i = require('dep-i')",
      "const j = require.resolve('dep-j/package.json')",
      "const k = nodeModule.createRequire(import.meta.url)('dep-k')",
      "const url = 'https://x.example'; const l = await import('dep-l')",
      "import { m } from 'node:fs'",
      "import n from './relative.ts'",
      '/**',
      " * import { o } from 'in-a-doc-comment'",
      " *   const p = require('in-a-doc-comment-too')",
      ' */',
      "// import q from 'in-a-line-comment'",
      "foo() // await import('after-code-on-the-line')",
    ].join('\n')
    expect(bareSpecifiers(text)).toEqual(['@scope/dep-b/sub/path.js', 'dep-a', 'dep-d', 'dep-e', 'dep-e2', 'dep-f/register', 'dep-g', 'dep-h', 'dep-i', 'dep-j/package.json', 'dep-k', 'dep-l', 'node:fs'].sort())
    const problems = undeclaredImports(new Map([['x.ts', text]]), { name: 'x', dependencies: { 'dep-a': '1', '@scope/dep-b': '1' }, peerDependencies: { 'dep-d': '1' }, devDependencies: { 'dep-e': '1' } })
    expect(problems.map((p) => `${p.specifier}: ${p.why}`)).toEqual([
      'dep-e: a devDependency only',
      'dep-e2: not declared',
      'dep-f/register: not declared',
      'dep-g: not declared',
      'dep-h: not declared',
      'dep-i: not declared',
      'dep-j/package.json: not declared',
      'dep-k: not declared',
      'dep-l: not declared',
    ])
  })
})
