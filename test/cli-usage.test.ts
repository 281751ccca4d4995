/**
 * The command line at the door (issue 25): every subcommand answers --help, and an unknown flag, a
 * bad value, a missing value, a busy port or a directory it cannot write to (said at the start, not
 * after the work) is one line on stderr and exit 2, never a stack trace (nor a hang);
 * `conformance` refuses a --shop-id that is not on the key's account before the first rule; an old
 * Node is stopped with one line by the CLI and by every entry point of the package.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMock, type RunningMock } from '../conformance/testing/harness.ts'
import { startRedis } from './support/redis.ts'
import { redactStoreUrl } from '../mock/lib/redact-url.ts'
import { NODE_NEEDED, oldNodeMessage } from '../openapi/node-version.ts'
import pkg from '../package.json' with { type: 'json' }

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin', 'shoptwin.mjs')

/** The CLIs started and not yet ended: a test that timed out waiting for one leaves it running (a server, a proxy), killed at the end. */
const running = new Set<ReturnType<typeof spawn>>()

/** Runs the CLI as a user does (bin/shoptwin.mjs) with `node` (the project's Node unless given). */
function cli(argv: string[], node = process.execPath, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(node, [bin, ...argv], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } })
    running.add(child)
    child.on('exit', () => running.delete(child))
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
  })
}

/** One line on stderr, no stack frame, nothing on stdout, exit 2. */
function expectUsageError(run: { code: number; stdout: string; stderr: string }, reason: RegExp): void {
  expect(run.stderr.split('\n').filter(Boolean)).toEqual([expect.stringMatching(reason)])
  expect(run.stderr).not.toMatch(/^\s+at /m)
  expect(run.stdout).toBe('')
  expect(run.code).toBe(2)
}

let mock: RunningMock
let out: string
beforeAll(async () => {
  mock = await startMock({ rateLimit: false })
  out = await mkdtemp(join(tmpdir(), 'shoptwin-cli-'))
  // A symlink to nothing (a volume not mounted): a directory under it cannot be made.
  await symlink(join(out, 'nowhere'), join(out, 'dangling'))
})
afterAll(async () => {
  for (const child of running) child.kill('SIGKILL')
  await mock?.close()
  if (out) await rm(out, { recursive: true, force: true })
})

// Each subcommand with the flags it needs to get as far as the value checks.
const conformance = () => ['conformance', '--base-url', mock.url, '--api-key', 'demo-key', '--shop-id', mock.shopId]
const SUBCOMMANDS: Array<{ name: string; base: () => string[]; badValue: [string, string, RegExp]; missing: string; typo: [string, string] }> = [
  { name: 'serve', base: () => ['serve'], badValue: ['--port', '99999', /^shoptwin serve: --port must be a port number from 0 to 65535/], missing: '--port', typo: ['--prot', '--port'] },
  { name: 'fixtures', base: () => ['fixtures', '--out', join(out, 'world')], badValue: ['--scale', 'huge', /^shoptwin fixtures: --scale must be one of small, default, large, certification, got "huge"/], missing: '--seed', typo: ['--ot', '--out'] },
  { name: 'conformance', base: conformance, badValue: ['--rps', '0', /^conformance: --rps must be a positive number/], missing: '--rules', typo: ['--rules-x', '--rules'] },
  { name: 'conformance --mcp-url', base: () => ['conformance', '--mcp-url', `${mock.url}/mcp`], badValue: ['--mcp-url', 'ftp://x', /^conformance: --mcp-url must be the http\(s\) URL/], missing: '--mcp-user', typo: ['--mcp-usr', '--mcp-user'] },
  { name: 'certify-client', base: () => ['certify-client'], badValue: ['--seed', 'x', /^shoptwin certify-client: --seed must be an integer, got "x"/], missing: '--profile', typo: ['--profle', '--profile'] },
  { name: 'proxy', base: () => ['proxy', '--upstream', mock.url], badValue: ['--fail-on', 'sometimes', /^shoptwin proxy: --fail-on must be must, should or never, got "sometimes"/], missing: '--seed', typo: ['--fail-no', '--fail-on'] },
]

describe('shoptwin <command>: --help, and one line with exit 2 for a bad flag or value', () => {
  it.each(SUBCOMMANDS)('$name --help: its usage on stdout, exit 0', async ({ name, base }) => {
    const run = await cli([...base(), '--help'])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(new RegExp(`^usage: shoptwin ${name.split(' ')[0]} `))
  })

  it.each(SUBCOMMANDS)('$name --bogus: unknown option', async ({ base }) => {
    expectUsageError(await cli([...base(), '--bogus']), /unknown option --bogus/)
  })

  it.each(SUBCOMMANDS)('$name: a mistyped option is refused with the one it most likely meant', async ({ base, typo: [typed, meant] }) => {
    expectUsageError(await cli([...base(), typed, 'x']), new RegExp(`unknown option ${typed} \\(did you mean ${meant}\\?\\)`))
  })

  it.each(SUBCOMMANDS)('$name: a bad value', async ({ base, badValue: [flag, value, reason] }) => {
    expectUsageError(await cli([...base(), flag, value]), reason)
  })

  it.each(SUBCOMMANDS)('$name: a flag without its value', async ({ base, missing }) => {
    expectUsageError(await cli([...base(), missing]), new RegExp(`${missing} needs a value`))
  })

  it.each([
    [['serve', '--today', '2026-13-45'], /--today is not a calendar date, got "2026-13-45"/],
    [['serve', '--today', '2026-02-30'], /--today is not a calendar date/],
    [['serve', '--scale', 'huge'], /--scale must be one of small, default, large/],
    [['serve', '--rate-limit', 'maybe'], /--rate-limit must be on or off/],
    [['serve', '--strict=yes'], /--strict takes no value/],
    [['serve', 'extra'], /unexpected argument extra/],
    [['fixtures'], /--out DIR is required/],
    [['proxy'], /^shoptwin proxy: --upstream URL is required/],
    [['proxy', '--upstream', 'ftp://x'], /^shoptwin proxy: --upstream must be an http\(s\) URL, got "ftp:\/\/x"/],
    [['proxy', '--upstream', 'http://127.0.0.1:1', '--inject', '/nonexistent.json'], /^shoptwin proxy: --inject must be standard, strict or a JSON file/],
    [['serve', '--seed', '99999999999999999999999'], /^shoptwin serve: --seed must be an integer from -9007199254740991 to 9007199254740991, got "99999999999999999999999"/],
    [['proxy', '--upstream', 'http://user:hunter2@127.0.0.1:1'], /^shoptwin proxy: --upstream must not carry a user or password: the proxy does not send them/],
    [['nonsense'], /^shoptwin: unknown command nonsense \(commands: serve, fixtures, conformance, certify-client/],
  ])('%j: one line, exit 2', async (argv, reason) => {
    expectUsageError(await cli(argv), reason)
  })

  // Node's recursive mkdir never returns for these (it makes the parent and tries the child again, forever): the command hung after its work.
  const UNMAKEABLE = [
    ['under a dangling symlink', () => join(out, 'dangling', 'reports')],
    ['under /proc', () => '/proc/shoptwin-reports'],
  ] as const
  const WRITERS: Array<[string, (dir: string) => string[], string]> = [
    ['fixtures', (dir) => ['fixtures', '--out', dir, '--scale', 'small'], 'shoptwin fixtures: --out'],
    ['conformance', (dir) => [...conformance(), '--report-dir', dir], 'conformance: --report-dir'],
    ['conformance --mcp-url', (dir) => ['conformance', '--mcp-url', `${mock.url}/mcp`, '--report-dir', dir], 'conformance: --report-dir'],
    ['certify-client', (dir) => ['certify-client', '--report-dir', dir], 'shoptwin certify-client: --report-dir'],
    ['proxy', (dir) => ['proxy', '--upstream', mock.url, '--port', '0', '--report-dir', dir], 'shoptwin proxy: --report-dir'],
  ]
  it.each(WRITERS.flatMap(([name, argv, prefix]) => UNMAKEABLE.map(([where, dir]) => [name, where, argv, prefix, dir] as const)))('%s: a directory %s that cannot be made: one line at the start, exit 2', async (_name, _where, argv, prefix, dirOf) => {
    const dir = dirOf()
    expectUsageError(await cli(argv(dir)), new RegExp(`^${prefix} ${dir}: ENOENT`))
  })

  it('the upstream\'s password is not printed with the refusal', async () => {
    const run = await cli(['proxy', '--upstream', 'http://user:hunter2@127.0.0.1:1'])
    expect(run.stderr + run.stdout).not.toContain('hunter2')
  })

  // A store URL the check refuses, from the flag or from SHOPTWIN_STORE, with its password plain, encoded or holding a / or an @.
  it.each([
    ['--store', 'redis://:hunter2@localhost/?socket=x'],
    ['--store', 'redis://user:hun/ter2@127.0.0.1:6379/x/y'],
    ['--store', 'rediss://:hunter2@@127.0.0.1:6379/?a'],
    ['SHOPTWIN_STORE', 'redis://:hunter2@localhost/?socket=x'],
    ['SHOPTWIN_STORE', 'redis://hunter2@h:1/x/y'],
  ])('serve with an unusable store URL given by %s: its password is not printed with the refusal', async (by, url) => {
    const run = by === '--store' ? await cli(['serve', '--port', '0', '--store', url]) : await cli(['serve', '--port', '0'], process.execPath, { SHOPTWIN_STORE: url })
    expectUsageError(run, /--store/)
    expect(run.stderr + run.stdout).not.toMatch(/hun\/?ter2/)
    expect(run.stderr).toContain('REDACTED@')
  })

  it('a store URL as errors and logs show it hides any password: generated passwords in every userinfo form', () => {
    const password = fc.string({ unit: fc.constantFrom(...'abcXYZ019:/@?#%._-~!$&*+=,;'), minLength: 6, maxLength: 24 }).filter((p) => !/REDACTED/.test(p))
    fc.assert(
      fc.property(fc.constantFrom('redis', 'rediss', 'valkey'), fc.constantFrom('', 'user'), password, fc.constantFrom('127.0.0.1:6379/0', 'h1:1,h2:2', 'localhost'), fc.boolean(), (scheme, user, secret, rest, lone) => {
        // A userinfo without a colon is the password alone (a colon in it would start one).
        const url = lone ? `${scheme}://${secret.replaceAll(':', '')}@${rest}` : `${scheme}://${user}:${secret}@${rest}`
        const shown = redactStoreUrl(url)
        expect(shown.endsWith(`@${rest}`)).toBe(true)
        expect(shown).toBe(lone ? `${scheme}://REDACTED@${rest}` : `${scheme}://${user}:REDACTED@${rest}`)
      }),
      { seed: Number(process.env.FUZZ_SEED ?? 7), numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    )
    expect(redactStoreUrl('unix:///run/redis.sock')).toBe('unix:///run/redis.sock')
    expect(redactStoreUrl('redis://127.0.0.1:6379/0')).toBe('redis://127.0.0.1:6379/0')
  })

  it.each(['--version', '-v', 'version'])('shoptwin %s: the version of package.json on stdout, exit 0', async (flag) => {
    const run = await cli([flag])
    expect(run).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' })
  })

  it.each([['serv', 'serve'], ['conformence', 'conformance'], ['certify', 'certify-client'], ['--proxy', 'proxy'], ['fixture', 'fixtures']])('shoptwin %s: an unknown command, and the one it most likely meant', async (typed, meant) => {
    expectUsageError(await cli([typed]), new RegExp(`^shoptwin: unknown command ${typed} \\(did you mean ${meant}\\?\\)`))
  })

  it('shoptwin nonsense: an unknown command with no guess, the commands listed', async () => {
    expectUsageError(await cli(['nonsense']), /^shoptwin: unknown command nonsense \(commands: serve, fixtures, conformance, certify-client, proxy; see shoptwin --help\)$/)
  })

  it('shoptwin --help lists every subcommand', async () => {
    const run = await cli(['--help'])
    expect(run.code).toBe(0)
    for (const { name } of SUBCOMMANDS) expect(run.stdout).toContain(`  ${name.split(' ')[0]} `)
  })
})

describe('a busy port: one line naming the process that holds it, and --port 0', () => {
  let holder: Server
  let port: number
  beforeAll(async () => {
    holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    port = (holder.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())))

  it.each([['serve', '--scale', 'small'], ['certify-client', '--scale', 'small'], ['proxy', '--upstream', 'http://127.0.0.1:1']])('%s --port <busy>', async (command, ...rest) => {
    const run = await cli([command, '--port', String(port), ...rest])
    expectUsageError(run, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*--port 0 for any free port`))
    // Linux: the holder is found through /proc (this test's own process holds the port).
    if (process.platform === 'linux') expect(run.stderr).toContain(`by pid ${process.pid} (`)
  })

  it('serve --store --port <busy>: the same line and exit 2, the shared store\'s connections closed (they kept the process up)', async () => {
    const redis = await startRedis()
    try {
      const run = await cli(['serve', '--port', String(port), '--scale', 'small', '--store', redis.url, '--twin', 'busy-port'])
      expectUsageError(run, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*--port 0 for any free port`))
    } finally {
      await redis.stop()
    }
  })
})

describe('conformance: --shop-id must be a shop of the key\'s account (spec: Authentication 1)', () => {
  it('a well-formed id on no shop of the account: one line listing the account\'s shops, exit 2, before any rule', async () => {
    const run = await cli(['conformance', '--base-url', mock.url, '--api-key', 'demo-key', '--shop-id', '00000000-0000-4000-8000-000000000000'])
    expectUsageError(run, /^conformance: --shop-id 00000000-0000-4000-8000-000000000000 is not a shop of this key's account \(GET \/account\/shops lists [0-9a-f-]{36}, /)
    expect(run.stderr).toContain(mock.shopId)
    expect(run.stderr).not.toContain('demo-key')
  })
})

describe('an old Node is stopped at the door (engines.node)', () => {
  it('the check and package.json agree on the version needed', () => {
    expect(pkg.engines.node).toBe(`>=${NODE_NEEDED}`)
    expect(oldNodeMessage('20.20.2')).toMatch(/^shoptwin needs Node 22\.12 or newer, this is Node 20\.20\.2: run `npm i -D node@22`/)
    expect(oldNodeMessage('22.11.0')).toBeDefined()
    expect(oldNodeMessage('22.12.0')).toBeUndefined()
    expect(oldNodeMessage('24.1.0')).toBeUndefined()
  })

  // The system's Node on this machine is 20: exactly a consumer's old Node.
  const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find((path) => existsSync(path) && Number(execFileSync(path, ['-p', 'process.versions.node']).toString().split('.')[0]) < 22)
  it.skipIf(!oldNode)('on that Node the CLI prints one line and exits 2; every entry point prints the same line and exits 1', async () => {
    const version = execFileSync(oldNode!, ['-p', 'process.versions.node']).toString().trim()
    const line = oldNodeMessage(version)!
    const run = await cli(['serve', '--port', '0'], oldNode)
    expect(run).toEqual({ code: 2, stdout: '', stderr: `${line}\n` })
    // The compiled entry points (package.json exports) as a consumer's `node app.mjs` imports them,
    // built into a scratch dist/ of their own (npm pack in another test rebuilds dist/ meanwhile).
    const scratch = join(root, `.scratch-dist-${process.pid}`)
    try {
      execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', scratch], { cwd: root, stdio: 'ignore' })
      const exports = Object.values(pkg.exports).map((target) => (typeof target === 'string' ? target : target.default)).filter((file) => file.endsWith('.js'))
      expect(exports.length).toBeGreaterThanOrEqual(4)
      for (const file of new Set(exports)) await expectOneLine(join(scratch, file.replace(/^\.\/dist\//, '')), oldNode!, line)
    } finally {
      await rm(scratch, { recursive: true, force: true })
    }
  }, 120_000)
})

/** `node app.mjs` importing `file` on the old Node: the one line on stderr, exit 1, nothing else. */
async function expectOneLine(file: string, oldNode: string, line: string): Promise<void> {
  const app = join(out, 'app.mjs')
  await writeFile(app, `import ${JSON.stringify(file)}\nconsole.log('loaded')\n`)
  const entry = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(oldNode, [app], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
  expect({ file, ...entry }).toEqual({ file, code: 1, stdout: '', stderr: `${line}\n` })
}
