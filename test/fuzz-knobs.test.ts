/**
 * A fuzz or property test widened through its runs knob (FUZZ_RUNS, STATEFUL_RUNS, CONTRACT_FUZZ_RUNS…)
 * fails on what it finds, never on vitest's clock: a test that makes its runs from such a knob has a time
 * limit grown from it too. Found widening them: `npm run fuzz:stateful` at STATEFUL_RUNS=4000 took 380 s of
 * its fixed 600 s on a shared 2-core machine, the contract fuzz's tests had 600 s each whatever
 * CONTRACT_FUZZ_RUNS, and test/proxy-fuzz-client's reports timed out at FUZZ_RUNS=5000 under vitest's 30 s.
 * Read from each file's syntax tree (@swc/core): the constants a knob sets, or one set from it; the tests
 * whose title or body reads one; and each of those tests' limit (its options' `timeout`, or the number
 * after its function), which must read one as well.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { parseSync } from '@swc/core'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '..')

type Node = { type?: string; [key: string]: unknown }

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path)
    return entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** Every node below `node`, itself included. */
function* nodes(node: unknown): Generator<Node> {
  if (Array.isArray(node)) for (const item of node) yield* nodes(item)
  else if (node && typeof node === 'object') {
    if (typeof (node as Node).type === 'string') yield node as Node
    for (const [key, value] of Object.entries(node)) if (key !== 'span' && key !== 'ctxt') yield* nodes(value)
  }
}

const reads = (node: unknown, names: ReadonlySet<string>): boolean => [...nodes(node)].some((n) => n.type === 'Identifier' && names.has(n.value as string))
/** `process.env.<NAME>RUNS` somewhere below `node`. */
const readsKnob = (node: unknown): boolean =>
  [...nodes(node)].some((n) => n.type === 'MemberExpression' && (n.property as Node).type === 'Identifier' && /RUNS$/.test((n.property as Node).value as string) && (n.object as Node).type === 'MemberExpression' && ((n.object as Node).property as Node).value === 'env')
/** How a title or a limit reads in the source, near enough to name it. */
function shown(node: Node | undefined): string {
  if (!node) return "vitest's default"
  if (node.type === 'StringLiteral' || node.type === 'NumericLiteral') return String(node.value)
  if (node.type === 'Identifier') return node.value as string
  if (node.type === 'TemplateLiteral') return (node.quasis as Node[]).map((q) => q.cooked ?? q.raw).join('${…}')
  return 'an expression'
}

/** The module's constants a runs knob sets, directly or through another of them. */
function runsConstants(module: Node): Set<string> {
  const declarators = (module.body as Node[]).flatMap((statement) => {
    const declaration = statement.type === 'ExportDeclaration' ? (statement.declaration as Node) : statement
    return declaration.type === 'VariableDeclaration' ? (declaration.declarations as Node[]).filter((d) => (d.id as Node).type === 'Identifier' && d.init) : []
  })
  const names = new Set<string>()
  for (let grew = true; grew; ) {
    grew = false
    for (const d of declarators) {
      const name = (d.id as Node).value as string
      if (names.has(name)) continue
      if (readsKnob(d.init) || reads(d.init, names)) {
        names.add(name)
        grew = true
      }
    }
  }
  return names
}

interface TestCall {
  title: string
  /** An async test whose title or body reads a runs constant or a knob. */
  makesRuns: boolean
  limit: Node | undefined
}

/** `it(...)`, `test(...)` and `it.each(table)(...)` calls: their title, whether they make runs from a knob, their time limit. */
function testCalls(module: Node, runs: ReadonlySet<string>): TestCall[] {
  const calls: TestCall[] = []
  for (const n of nodes(module)) {
    if (n.type !== 'CallExpression') continue
    const callee = n.callee as Node
    const isTest = (callee.type === 'Identifier' && ['it', 'test'].includes(callee.value as string)) || (callee.type === 'CallExpression' && (callee.callee as Node).type === 'MemberExpression' && ((callee.callee as Node).object as Node).type === 'Identifier' && ['it', 'test'].includes(((callee.callee as Node).object as Node).value as string))
    if (!isTest) continue
    const args = (n.arguments as Array<{ expression: Node }>).map((a) => a.expression)
    const fnIndex = args.findIndex((a) => a.type === 'ArrowFunctionExpression' || a.type === 'FunctionExpression')
    if (fnIndex < 0) continue
    const options = args.slice(1, fnIndex).find((a) => a.type === 'ObjectExpression')
    const timeoutProp = (options?.properties as Node[] | undefined)?.find((p) => p.type === 'KeyValueProperty' && (p.key as Node).value === 'timeout')
    const limit = (timeoutProp?.value as Node | undefined) ?? args[fnIndex + 1]
    // An async test is one that does work (requests, a server, an async property); a synchronous one that reads RUNS only counts.
    const fn = args[fnIndex]!
    const makesRuns = fn.async === true && (reads(args[0], runs) || reads(fn, runs) || reads(callee, runs) || readsKnob(fn))
    calls.push({ title: shown(args[0]).slice(0, 100), makesRuns, limit })
  }
  return calls
}

const parse = (source: string) => parseSync(source, { syntax: 'typescript', target: 'es2022' }) as unknown as Node
const knobFiles = testFiles(join(root, 'test')).filter((file) => readsKnob(parse(readFileSync(file, 'utf8'))))

describe('fuzz knobs: a test widened through its runs knob has a time limit grown from it', () => {
  it('the test files with a runs knob are found (FUZZ_RUNS, STATEFUL_RUNS, CONTRACT_FUZZ_RUNS, TWIN_LOG_RUNS)', () => {
    const names = knobFiles.map((file) => relative(root, file))
    expect(names).toEqual(expect.arrayContaining(['test/mock-stateful.test.ts', 'test/proxy-fuzz-client.test.ts', 'test/robustness-fuzz.test.ts', 'test/twin-log.test.ts', 'test/contract-fuzz/contract-fuzz.test.ts']))
  })

  it.each(knobFiles.map((file) => [relative(root, file), file]))('%s: every test that reads a runs constant has a limit that reads one', (_name, file) => {
    const source = readFileSync(file, 'utf8')
    const module = parse(source)
    const runs = runsConstants(module)
    const unbounded = testCalls(module, runs).filter((c) => c.makesRuns && !(c.limit && reads(c.limit, runs))).map((c) => `${c.title}: limit ${shown(c.limit)}`)
    expect(unbounded).toEqual([])
  })

  it('the check fires: an async test making RUNS runs (or reading a knob itself) under a fixed limit, or none, is named; one whose limit grows with RUNS, one apart from it and a synchronous count are not', () => {
    const source = [
      'const RUNS = Number(process.env.FUZZ_RUNS ?? 10)',
      'const LIMIT = Math.max(1000, RUNS * 100)',
      "it('fixed', async () => { for (let i = 0; i < RUNS; i++) {} }, 600_000)",
      "it('none', async () => { await fc.assert(fc.asyncProperty(fc.nat(), async () => true), { numRuns: RUNS }) })",
      "it('inline', async () => { await run(Number(process.env.X_RUNS ?? 5)) }, 30_000)",
      "it('counts only', () => { expect(cases).toBeGreaterThanOrEqual(RUNS) })",
      "it.each([1])('each %s', { timeout: 5_000 }, async () => { void RUNS })",
      "it('grown', { timeout: LIMIT }, async () => { void RUNS })",
      "it('apart', () => { expect(1).toBe(1) })",
    ].join('\n')
    const module = parse(source)
    const runs = runsConstants(module)
    expect([...runs]).toEqual(['RUNS', 'LIMIT'])
    const flagged = testCalls(module, runs).filter((c) => c.makesRuns && !(c.limit && reads(c.limit, runs))).map((c) => c.title)
    expect(flagged).toEqual(['fixed', 'none', 'inline', 'each %s'])
  })
})
