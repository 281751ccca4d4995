/**
 * `shoptwin serve` and `certify-client` where msw, shoptwin's peer dependency, is not installed (Yarn
 * installs no missing peer: `yarn add shoptwin` alone, `yarn dlx shoptwin serve`; npm with
 * legacy-peer-deps neither): one line naming msw and how to add it, exit 2, before a server starts.
 * Before, the server started and its control API answered 500 (certify-client's documented
 * `POST /__admin/certification/finish` among them). bin/shoptwin.mjs runs here from a package of its own
 * in a temp dir: its dist/ is a stand-in that says it started, and msw is there or not.
 * (The real Yarn install without msw: test/consumer-pm.install-test.ts, `npm run test:install`.)
 */
import { execFile } from 'node:child_process'
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repositoryRoot } from './support/working-tree.ts'

let dir: string
let bin: string

/** Runs the bin with `args`: its exit code and output. */
async function shoptwin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], { cwd: dir, timeout: 30_000 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

const MESSAGE = (command: string) =>
  `shoptwin ${command} needs msw, its peer dependency, and it is not installed beside shoptwin: add it (npm i -D msw, pnpm add -D msw, yarn add -D msw), or with yarn dlx name both: yarn dlx -p shoptwin -p msw shoptwin ${command}\n`

describe('the CLI without its peer msw', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shoptwin-peer-'))
    const pkg = join(dir, 'node_modules', 'shoptwin')
    await mkdir(join(pkg, 'dist', 'mock'), { recursive: true })
    await cp(join(repositoryRoot, 'bin'), join(pkg, 'bin'), { recursive: true })
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'shoptwin', version: '0.0.0', type: 'module', peerDependencies: { msw: '^3' } }))
    await writeFile(join(pkg, 'dist', 'mock', 'cli.js'), "export async function main(argv) { console.log('started ' + argv.join(' ')) }\n")
    bin = join(pkg, 'bin', 'shoptwin.mjs')
  })
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it.each(['serve', 'certify-client'])('%s stops with one line naming msw and exit 2; its --help still answers', async (command) => {
    expect(await shoptwin([command, '--port', '0'])).toEqual({ code: 2, stdout: '', stderr: MESSAGE(command) })
    expect(await shoptwin([command, '--help'])).toMatchObject({ code: 0, stdout: `started ${command} --help\n` })
  })

  it('certify-client\'s own flags are read before --: a --help of the command it runs does not skip the check', async () => {
    expect(await shoptwin(['certify-client', '--', 'my-tests', '--help'])).toMatchObject({ code: 2, stderr: MESSAGE('certify-client') })
  })

  it('the commands that need no msw run without it (fixtures, conformance, proxy, --version)', async () => {
    for (const args of [['fixtures', '--out', 'w'], ['conformance', '--list'], ['proxy', '--upstream', 'http://127.0.0.1:1'], ['--version']]) {
      expect(await shoptwin(args)).toMatchObject({ code: 0, stdout: `started ${args.join(' ')}\n` })
    }
  })

  it('with msw installed beside shoptwin, serve and certify-client start', async () => {
    const msw = join(dir, 'node_modules', 'msw')
    await mkdir(msw, { recursive: true })
    await writeFile(join(msw, 'package.json'), JSON.stringify({ name: 'msw', version: '3.0.0', type: 'module', exports: { '.': { default: './index.js' } } }))
    await writeFile(join(msw, 'index.js'), 'export {}\n')
    try {
      expect(await shoptwin(['serve', '--port', '0'])).toMatchObject({ code: 0, stdout: 'started serve --port 0\n', stderr: '' })
      expect(await shoptwin(['certify-client', '--', 'node', 'x.mjs'])).toMatchObject({ code: 0, stdout: 'started certify-client -- node x.mjs\n', stderr: '' })
    } finally {
      await rm(msw, { recursive: true, force: true })
    }
  })
})
