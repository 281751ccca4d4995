/**
 * shoptwin installed from its tarball with pnpm (12, strict node_modules: a package sees only what it
 * declares) and Yarn Berry (4, Plug'n'Play: no node_modules, packages read from zip archives through
 * Yarn's runtime), on Node 24 and Node 22 (the npm package `node@22`), in fresh client projects outside
 * the repository, doing what the README shows: the MSW handlers under the client's vitest; `shoptwin
 * serve` through `pnpm exec` / `yarn run` (its API and its control API, which loads the peer msw),
 * `shoptwin conformance` against it, `shoptwin proxy` in front of it (stopped as Ctrl-C stops it, its
 * reports written); `shoptwin certify-client` running a client; `pnpm dlx` / `yarn dlx`; the browser
 * entry bundled by esbuild. And the tarball's own files import only what its package.json declares
 * (test/package-imports.test.ts checks the sources in `npm test`).
 * Both package managers are this repository's devDependencies (no corepack, no system package); they
 * fetch from npm's registry and keep their stores and caches in the test's temp dir.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pkg from '../package.json' with { type: 'json' }
import { describeUndeclared, undeclaredImports } from './support/package-imports.ts'
import { readmeSnippet } from './support/readme.ts'
import { copyWorkingTree } from './support/working-tree.ts'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const PNPM = join(root, 'node_modules', '.bin', 'pnpm')
const YARN = join(root, 'node_modules', '@yarnpkg', 'cli-dist', 'bin', 'yarn.js')
const REGISTRY = process.env.npm_config_registry ?? 'https://registry.npmjs.org/'

let dir: string
let tarball: string
/** A directory per Node version holding only `node`, put first on the PATH the package managers and their scripts see. */
const nodeBin: Record<'24' | '22', string> = { '24': '', '22': '' }

/** The environment of a package manager's run: npm's own variables (npm run sets them) left out, the registry kept, the Node of `node` first on the PATH. */
function envFor(node: '24' | '22'): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)))
  return {
    ...env,
    PATH: `${nodeBin[node]}:${process.env.PATH}`,
    npm_config_registry: REGISTRY,
    npm_config_update_notifier: 'false',
    npm_config_store_dir: join(dir, 'pnpm-store'),
    npm_config_cache_dir: join(dir, 'pnpm-cache'),
    YARN_GLOBAL_FOLDER: join(dir, 'yarn-global'),
    YARN_ENABLE_TELEMETRY: '0',
  }
}

/** Runs a command; resolves with its output, rejects with it when it fails. */
async function sh(cwd: string, node: '24' | '22', command: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env: envFor(node), maxBuffer: 64 * 1024 * 1024, timeout: 300_000 })
    return stdout + stderr
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string }
    throw new Error(`${command} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`)
  }
}

interface Manager {
  name: 'pnpm' | 'yarn'
  /** The command and leading arguments that run the package manager. */
  cli: (node: '24' | '22') => [string, string[]]
  /** Adds packages as devDependencies. */
  add: string[]
  /** Runs a package's bin in the project: `pnpm exec X`, `yarn run X`. */
  exec: string[]
  /** Runs shoptwin from the tarball without adding it: `pnpm dlx`, `yarn dlx`, msw named beside it or not. */
  dlx: (withMsw: boolean) => string[]
  /** Files the project needs before its first install. */
  setup: (client: string) => Promise<void>
}

const MANAGERS: Manager[] = [
  {
    name: 'pnpm',
    cli: () => [PNPM, []],
    add: ['add', '-D', '--allow-build=esbuild'],
    exec: ['exec'],
    // pnpm installs a missing peer (msw) itself, in dlx as in add.
    dlx: () => ['dlx', `--package=${tarball}`, 'shoptwin'],
    setup: async () => {},
  },
  {
    name: 'yarn',
    cli: (node) => [join(nodeBin[node], 'node'), [YARN]],
    add: ['add', '-D'],
    exec: ['run'],
    dlx: (withMsw) => ['dlx', '-p', `shoptwin@file:${tarball}`, ...(withMsw ? ['-p', `msw@${pkg.peerDependencies.msw}`] : []), 'shoptwin'],
    setup: async (client) => {
      // Plug'n'Play, Yarn's default, said out loud; the cache in the temp dir; CI=true makes installs
      // immutable by default, and `yarn add` changes the lock by design.
      await writeFile(join(client, '.yarnrc.yml'), [`nodeLinker: pnp`, `enableGlobalCache: false`, `cacheFolder: ${JSON.stringify(join(dir, 'yarn-cache'))}`, `npmRegistryServer: ${JSON.stringify(REGISTRY.replace(/\/$/, ''))}`, 'enableImmutableInstalls: false', 'enableTelemetry: false', ''].join('\n'))
      await writeFile(join(client, 'yarn.lock'), '')
    },
  },
]

/**
 * The client's test: the README's MSW set-up as it stands (its override of one operation, its clock),
 * and what a client's tests then see.
 */
const clientTest = (readme: string) => `${readmeSnippet(readme, "### In-process, in your client's tests (MSW)")}
import { expect, it } from 'vitest'

const shop = () => state.world.shops.find((s) => s.is_active && s.plan === 'scale')!.shop_id
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => fetch('https://api.example.com' + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop(), ...headers }, body: JSON.stringify(body) })

it('the override answers in place of the twin', async () => {
  const res = await fetch('https://api.example.com/shop/sps', { headers: { 'x-api-key': 'demo-key', 'x-shop-id': shop() } })
  expect(await res.json()).toEqual({ data: { sps: 2 } })
})

it('then the twin: an idempotent retry replays the first answer byte for byte', async () => {
  const first = await post('/lists/create', { title: 'retry', handles: [] }, { 'idempotency-key': 'retry-1' })
  const again = await post('/lists/create', { title: 'retry', handles: [] }, { 'idempotency-key': 'retry-1' })
  expect(first.status).toBe(201)
  expect(await again.text()).toBe(await first.text())
})
`

/** A client certify-client runs: one read with the environment it is given. */
const CERTIFIED_CLIENT = `
const res = await fetch(process.env.SHOPTWIN_BASE_URL + '/account/shops', { headers: { 'x-api-key': process.env.SHOPTWIN_API_KEY } })
console.log('client read', res.status)
`

const BROWSER_PAGE = `
import { setupWorker } from 'msw/browser'
import { createHandlers, createMockState } from 'shoptwin/mock'
const state = createMockState({ seed: 42, scale: 'small', rateLimit: false })
await setupWorker(...createHandlers(state, { baseUrl: location.origin + '/api' })).start({ quiet: true, onUnhandledFrame: 'bypass' })
`

/** Starts a long-running command in a process group of its own; resolves with the first URL its output names. */
function start(cwd: string, node: '24' | '22', command: string, args: string[], pattern: RegExp): { child: ChildProcess; url: Promise<string>; output: () => string } {
  const child = spawn(command, args, { cwd, env: envFor(node), stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let text = ''
  const url = new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      text += chunk
      const match = pattern.exec(text)
      if (match) resolve(match[1]!)
    }
    child.stdout!.on('data', read)
    child.stderr!.on('data', read)
    // close, not exit: the output is read to its end first.
    child.once('close', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code} before it listened:\n${text}`)))
  })
  return { child, url, output: () => text }
}

/**
 * Stops a started command as Ctrl-C in a terminal does: SIGINT to its whole group, the package manager
 * and shoptwin. Resolves when the package manager has ended: true when it exited 0 or ended by that
 * SIGINT (pnpm raises it again on itself, as a shell expects of a program Ctrl-C stopped).
 */
async function interrupt(child: ChildProcess): Promise<boolean> {
  const ended = () => child.exitCode === 0 || child.signalCode === 'SIGINT'
  if (child.exitCode !== null || child.signalCode !== null) return ended()
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  process.kill(-child.pid!, 'SIGINT')
  await exited
  return ended()
}

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/

describe('shoptwin installed with pnpm and Yarn (PnP), on Node 24 and 22', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shoptwin-pm-'))
    // Packed from a copy of the working tree (a pack in the repository rebuilds its dist/ under the other test files).
    const packed = join(dir, 'shoptwin')
    await copyWorkingTree(packed, { nodeModules: true })
    await run('npm', ['pack', '--pack-destination', dir], { cwd: packed, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 })
    tarball = join(dir, (await readdir(dir)).find((f) => f.endsWith('.tgz'))!)
    // Node 22 from npm, as test/consumer.test.ts gets it; Node 24 is the one running this test.
    const tools = join(dir, 'tools')
    await mkdir(tools)
    await writeFile(join(tools, 'package.json'), JSON.stringify({ name: 'tools', version: '1.0.0', private: true, allowScripts: { node: true } }))
    await run('npm', ['install', '--no-audit', '--no-fund', 'node@22'], { cwd: tools, timeout: 300_000 })
    for (const [version, node] of [['24', process.execPath], ['22', join(tools, 'node_modules', 'node', 'bin', 'node')]] as const) {
      nodeBin[version] = join(dir, `node-${version}`)
      await mkdir(nodeBin[version])
      await symlink(node, join(nodeBin[version], 'node'))
    }
    expect((await sh(dir, '22', 'node', ['--version'])).trim()).toMatch(/^v22\./)
  }, 600_000)
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('the tarball\'s files import only Node builtins, shoptwin itself and what its package.json declares', async () => {
    const extracted = join(dir, 'extracted')
    await mkdir(extracted)
    await run('tar', ['-xzf', tarball, '-C', extracted])
    const packageDir = join(extracted, 'package')
    const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'))
    const files = new Map<string, string>()
    for (const file of await readdir(packageDir, { recursive: true })) {
      if (/\.(?:[cm]?js|d\.[cm]?ts)$/.test(file)) files.set(file, await readFile(join(packageDir, file), 'utf8'))
    }
    expect([...files.keys()]).toEqual(expect.arrayContaining(['bin/shoptwin.mjs', join('dist', 'mock', 'index.js'), join('dist', 'mock', 'index.d.ts')]))
    const problems = undeclaredImports(files, manifest)
    expect(problems, describeUndeclared(problems)).toEqual([])
  })

  describe.each(MANAGERS.flatMap((manager) => (['24', '22'] as const).map((node) => ({ manager, node, label: `${manager.name}, Node ${node}` }))))('$label', ({ manager, node }) => {
    let client: string
    let installLog: string
    const pm = (args: string[]) => {
      const [command, leading] = manager.cli(node)
      return sh(client, node, command, [...leading, ...args])
    }
    const startWith = (args: string[], pattern: RegExp) => {
      const [command, leading] = manager.cli(node)
      return start(client, node, command, [...leading, ...args], pattern)
    }

    beforeAll(async () => {
      client = join(dir, `${manager.name}-${node}`)
      await mkdir(client)
      await writeFile(join(client, 'package.json'), JSON.stringify({ name: 'client', version: '1.0.0', private: true, type: 'module' }))
      await manager.setup(client)
      // vitest's peer vite is named (Yarn installs no missing peer); pnpm installs it as a peer anyway.
      installLog = await pm([...manager.add, manager.name === 'yarn' ? `shoptwin@file:${tarball}` : tarball, `msw@${pkg.peerDependencies.msw}`, `vitest@${pkg.devDependencies.vitest}`, 'vite@^8', `esbuild@${pkg.devDependencies.esbuild}`])
      await writeFile(join(client, 'client.test.ts'), clientTest(await readFile(join(root, 'README.md'), 'utf8')))
      await writeFile(join(client, 'certified-client.mjs'), CERTIFIED_CLIENT)
      await writeFile(join(client, 'page.mjs'), BROWSER_PAGE)
    }, 600_000)

    it('the install names no peer of shoptwin or of its dependencies as missing', () => {
      // Yarn: "YN0002: │ client@workspace:. doesn't provide msw (p1234a), requested by shoptwin"; pnpm: "✕ missing peer".
      expect(installLog).not.toMatch(/YN0002|missing peer|unmet peer/i)
    })

    it('the README\'s MSW set-up under the client\'s vitest', async () => {
      expect(await pm(manager.name === 'pnpm' ? ['exec', 'vitest', 'run', 'client.test.ts'] : ['vitest', 'run', 'client.test.ts'])).toMatch(/2 passed/)
    }, 120_000)

    it('shoptwin serve: the API, a write, the control API; conformance against it; the proxy in front of it writes its reports on Ctrl-C', async () => {
      const serve = startWith([...manager.exec, 'shoptwin', 'serve', '--port', '0', '--scale', 'small', '--rate-limit', 'off'], LISTENING)
      let proxy: ReturnType<typeof start> | undefined
      try {
        const url = await serve.url
        const shops = (await (await fetch(`${url}/account/shops`, { headers: { 'x-api-key': 'demo-key' } })).json()) as { data: Array<{ shop_id: string; is_active: boolean }> }
        const shop = shops.data.find((s) => s.is_active)!.shop_id
        const write = await fetch(`${url}/lists/create`, { method: 'POST', headers: { 'x-api-key': 'demo-key', 'x-shop-id': shop, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'pm', handles: [] }) })
        expect(write.status).toBe(201)
        // The control API answers through msw, the peer: a 500 where the package manager did not give it to shoptwin.
        const requests = await fetch(`${url}/__admin/requests`)
        expect(requests.status, await requests.clone().text()).toBe(200)

        const report = join(client, `conformance-${Date.now()}`)
        const out = await pm([...manager.exec, 'shoptwin', 'conformance', '--base-url', url, '--api-key', 'demo-key', '--shop-id', shop, '--rules', 'auth.missing-shop-header,idempotency.key-format', '--rps', '50', '--report-dir', report])
        expect(out).toMatch(/PASS auth\.missing-shop-header/)
        expect((await readdir(report)).sort()).toEqual(['junit.xml', 'report.html', 'report.json'])

        const proxyReport = join(client, `proxy-${Date.now()}`)
        proxy = startWith([...manager.exec, 'shoptwin', 'proxy', '--upstream', url, '--port', '0', '--report-dir', proxyReport], /proxy: (http:\/\/127\.0\.0\.1:\d+)/)
        const through = await fetch(`${await proxy.url}/account/shops`, { headers: { 'x-api-key': 'demo-key' } })
        expect(through.status).toBe(200)
        await through.arrayBuffer()
        expect(await interrupt(proxy.child), proxy.output()).toBe(true)
        // shoptwin may still be writing them when its package manager has ended.
        const written = async () => ({
          files: (await readdir(proxyReport).catch(() => [])).sort(),
          report: await readFile(join(proxyReport, 'report.json'), 'utf8').then(JSON.parse).catch(() => undefined),
        })
        await expect.poll(written, { timeout: 30_000 }).toMatchObject({ files: ['junit.xml', 'report.html', 'report.json'], report: { upstream: url, exchanges: 1, exitCode: 0 } })
      } finally {
        if (proxy) await interrupt(proxy.child)
        expect(await interrupt(serve.child), serve.output()).toBe(true)
      }
    }, 180_000)

    it('shoptwin certify-client runs a client and certifies what it did', async () => {
      const report = join(client, `certify-${Date.now()}`)
      const out = await pm([...manager.exec, 'shoptwin', 'certify-client', '--scale', 'small', '--report-dir', report, '--', 'node', 'certified-client.mjs'])
      expect(out).toMatch(/client read 200/)
      expect(out).toMatch(/^CERTIFIED for 1 operation/m)
      expect((await readdir(report)).sort()).toEqual(['junit.xml', 'report.html', 'report.json'])
    }, 180_000)

    it(`${manager.name} dlx runs shoptwin serve from the tarball, its control API included${manager.name === 'yarn' ? '; without msw named, one line says so' : ' (pnpm installs the peer msw)'}`, async () => {
      const serve = startWith([...manager.dlx(true), 'serve', '--port', '0', '--scale', 'small'], LISTENING)
      try {
        const url = await serve.url
        expect((await fetch(`${url}/health`)).status).toBe(200)
        expect((await fetch(`${url}/__admin/requests`)).status).toBe(200)
      } finally {
        expect(await interrupt(serve.child), serve.output()).toBe(true)
      }
      if (manager.name === 'yarn') {
        // yarn dlx installs no missing peer: the server must not start (its control API would answer 500).
        const bare = startWith([...manager.dlx(false), 'serve', '--port', '0', '--scale', 'small'], /(listening on http:\S+|shoptwin serve needs msw[^\n]*)/)
        const exited = new Promise<number | null>((resolve) => bare.child.once('exit', (code) => resolve(code)))
        try {
          expect(await bare.url).toBe('shoptwin serve needs msw, its peer dependency, and it is not installed beside shoptwin: add it (npm i -D msw, pnpm add -D msw, yarn add -D msw), or with yarn dlx name both: yarn dlx -p shoptwin -p msw shoptwin serve')
          expect(await exited).toBe(2)
        } finally {
          if (bare.child.exitCode === null && bare.child.signalCode === null) await interrupt(bare.child)
        }
      }
    }, 180_000)

    it('esbuild bundles the browser entry (shoptwin/mock\'s browser build, no Node server) with msw/browser', async () => {
      const args = ['esbuild', 'page.mjs', '--bundle', '--platform=browser', '--format=esm', '--outfile=bundle/page.js', '--metafile=bundle/meta.json', '--log-level=warning']
      await pm(manager.name === 'pnpm' ? ['exec', ...args] : args)
      const inputs = Object.keys((JSON.parse(await readFile(join(client, 'bundle', 'meta.json'), 'utf8')) as { inputs: Record<string, unknown> }).inputs)
      const shoptwin = inputs.filter((input) => /shoptwin/.test(input)).map((input) => input.replace(/^.*?dist\//, 'dist/'))
      expect(shoptwin).toContain('dist/mock/browser.js')
      expect(shoptwin).not.toContain('dist/mock/server.js')
      expect(inputs.some((input) => /msw/.test(input) && /browser/.test(input))).toBe(true)
    }, 120_000)
  })
})
