/**
 * shoptwin installed as the README says before it is on the registry (issue 25): from git, as
 * `npm i -D git+file://<clone>` (npm clones it, installs its dev tools in the clone, runs `prepare`,
 * the build of dist/, and installs the packed result) into a fresh client project; there the CLI
 * serves and stops, the README's openapi-fetch snippet compiles under the client's strict tsc, and
 * every document the README, the CLI's help or the serve banner names is in the package (in
 * `npm pack --dry-run` and in the installed copy).
 * (The tarball install and its journeys: test/consumer.test.ts.)
 */
import { execFile, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, posix } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pkg from '../package.json' with { type: 'json' }
import { readmeSnippet as snippet } from './support/readme.ts'
import { copyWorkingTree } from './support/working-tree.ts'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
let dir: string
let client: string

async function sh(cwd: string, command: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false' }, maxBuffer: 64 * 1024 * 1024, timeout: 480_000 })
    return stdout + stderr
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string }
    throw new Error(`${command} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`)
  }
}

/** Relative paths of documents (*.md) a text names: links, backticks or bare paths; not URLs. */
const docsNamed = (text: string): string[] =>
  [...new Set([...text.matchAll(/(?<![\w/:.-])((?:\.{1,2}\/)?[\w.-]+(?:\/[\w.-]+)*\.md)\b/g)].map((m) => posix.normalize(m[1]!.replace(/^node_modules\/shoptwin\//, ''))))]

describe('shoptwin installed from git, as the README shows (issue 25)', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shoptwin-git-'))
    // The clone: the working tree's files (tracked and new, not ignored) committed in a repository of their own.
    const repo = join(dir, 'shoptwin')
    await copyWorkingTree(repo)
    await sh(repo, 'git', ['init', '-q'])
    await sh(repo, 'git', ['add', '-A'])
    await sh(repo, 'git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-qm', 'snapshot'])
    client = join(dir, 'client')
    await mkdir(client)
    await writeFile(join(client, 'package.json'), JSON.stringify({ name: 'client', version: '1.0.0', private: true, type: 'module' }))
    await sh(client, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `git+${pathToFileURL(repo).href}`, `msw@${pkg.peerDependencies.msw}`, 'openapi-fetch@^0.17', 'typescript@^5.9', '@types/node@^24'])
  }, 900_000)
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('npm ran prepare in the clone: the installed package has its compiled dist/ and a git+file resolved dependency', async () => {
    const installed = join(client, 'node_modules', 'shoptwin')
    for (const target of Object.values(pkg.exports).map((t) => (typeof t === 'string' ? t : t.default))) await stat(join(installed, target))
    const lock = JSON.parse(await readFile(join(client, 'package-lock.json'), 'utf8'))
    expect(lock.packages['node_modules/shoptwin'].resolved).toMatch(/^git\+file:\/\/.*#[0-9a-f]{40}$/)
  })

  it('the CLI: serve --port 0 answers and stops on SIGTERM; the banner and every --help name only documents the package holds', async () => {
    const bin = join(client, 'node_modules', 'shoptwin', 'bin', 'shoptwin.mjs')
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--scale', 'small'], { cwd: client, stdio: ['ignore', 'pipe', 'pipe'] })
    let banner = ''
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk) => {
          banner += chunk
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)
          if (match && /Sign in as/.test(banner)) resolve(match[1]!)
        })
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${banner}`)))
      })
      expect((await fetch(`${url}/health`)).status).toBe(200)
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
    const helps = await Promise.all([[], ['serve'], ['fixtures'], ['conformance'], ['certify-client']].map((argv) => sh(client, process.execPath, [bin, ...argv, '--help'])))
    const named = docsNamed([banner, ...helps].join('\n'))
    expect(named).toContain('mock/connector/README.md')
    for (const doc of named) await expect(stat(join(client, 'node_modules', 'shoptwin', doc)).then(() => doc), `${doc} is named by the CLI`).resolves.toBe(doc)
  }, 120_000)

  it('every document the README names, and those they name, is in `npm pack --dry-run` and in the installed package', async () => {
    const packed = JSON.parse(await sh(root, 'npm', ['pack', '--dry-run', '--json', '--ignore-scripts'])) as Array<{ files: Array<{ path: string }> }>
    const files = new Set(packed[0]!.files.map((f) => f.path))
    const seen = new Set<string>()
    const queue = ['README.md']
    while (queue.length) {
      const doc = queue.shift()!
      if (seen.has(doc)) continue
      seen.add(doc)
      expect(files.has(doc), `${doc} is in the tarball`).toBe(true)
      await stat(join(client, 'node_modules', 'shoptwin', doc))
      const text = await readFile(join(root, doc), 'utf8')
      // A link is relative to its document; a bare path in prose is often the package's (`mock/README.md`).
      for (const named of docsNamed(text)) {
        const candidates = [posix.normalize(posix.join(posix.dirname(doc), named)), named]
        queue.push(candidates.find((path) => files.has(path)) ?? candidates[0]!)
      }
    }
    expect([...seen]).toEqual(expect.arrayContaining(['README.md', 'conformance/README.md', 'mock/connector/README.md']))
  }, 120_000)

  it('the README\'s openapi-fetch snippet compiles under the client\'s strict tsc, typed by shoptwin/openapi', async () => {
    const readme = await readFile(join(root, 'README.md'), 'utf8')
    await writeFile(join(client, 'snippet.ts'), snippet(readme, '### A typed client: openapi-fetch'))
    await writeFile(join(client, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true, lib: ['ES2023', 'DOM'], types: ['node'] }, include: ['snippet.ts'] }))
    await sh(client, process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'])
    // And a mistake in it is caught: the snippet is really checked.
    await writeFile(join(client, 'snippet.ts'), snippet(readme, '### A typed client: openapi-fetch').replace("name: 'Weekly'", 'name: 7'))
    await expect(sh(client, process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'])).rejects.toThrow(/snippet\.ts.*error TS2322/)
  }, 120_000)
})
