/**
 * A command started under npm stops when npm goes away (mock/lib/orphan.ts). `npx shoptwin serve &`
 * then `kill $!`, as CI scripts do, sends SIGTERM to npm, which passes it to the shell it ran the
 * command in; the shell dies without passing it on and npm exits. Before, the server lived on,
 * re-parented, holding its port, and a proxy's reports were never written. Here npm runs the
 * repository's own script (`npm run shoptwin -- …`: npm, a shell, then node, as npx runs an installed
 * package), npm alone gets the SIGTERM, and the command must stop as on SIGTERM: the server's port
 * closed, the proxy's reports written. Servers on 127.0.0.1, port 0.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const dirs: string[] = []
/** The commands started, each marked by a seed of its own: stopped at the end, whatever a test found. */
const marks: string[] = []

/** The processes whose command line holds `mark` (from /proc: no procps needed). */
const processesMarked = (mark: string): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(mark)
      } catch {
        return false
      }
    })
    .map(Number)

afterAll(() => {
  for (const mark of marks) for (const pid of processesMarked(mark)) process.kill(pid, 'SIGKILL')
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** `npm run shoptwin -- args`, and the first line matching `ready` on its output. */
function underNpm(args: string[], ready: RegExp): Promise<{ npm: ChildProcess; output: () => string; line: string }> {
  const npm = spawn('npm', ['run', '-s', 'shoptwin', '--', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  return new Promise((resolve, reject) => {
    npm.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const line = ready.exec(out)
      if (line) resolve({ npm, output: () => out, line: line[0] })
    })
    npm.once('exit', (code) => reject(new Error(`npm exited with ${code} before the command was ready: ${out}`)))
  })
}

const answers = async (url: string) => {
  try {
    return (await fetch(`${url}/health`)).status === 200
  } catch {
    return false
  }
}

describe('a command under npm stops when npm goes away (npx shoptwin … & then kill $!)', () => {
  it('serve: npm gets SIGTERM, the server stops as on SIGTERM and its port closes', async () => {
    const mark = '--seed=70417'
    marks.push(mark)
    const { npm, output, line } = await underNpm(['serve', '--port', '0', '--host', '127.0.0.1', mark], /listening on http:\/\/127\.0\.0\.1:\d+/)
    const url = line.slice('listening on '.length)
    expect(await answers(url)).toBe(true)
    npm.kill('SIGTERM')
    await expect.poll(() => answers(url), { timeout: 20_000, interval: 200 }).toBe(false)
    expect(output()).toContain('shoptwin: the npm process that started it ended, finishing in-flight requests...')
  }, 60_000)

  it('proxy: npm gets SIGTERM, the proxy stops as on SIGTERM and writes its reports', async () => {
    const upstreamMark = '--seed=70418'
    marks.push(upstreamMark, '70419-reports')
    const upstream = await underNpm(['serve', '--port', '0', '--host', '127.0.0.1', upstreamMark], /listening on http:\/\/127\.0\.0\.1:\d+/)
    const upstreamUrl = upstream.line.slice('listening on '.length)
    const dir = mkdtempSync(join(tmpdir(), 'shoptwin-orphan-70419-reports-'))
    dirs.push(dir)
    const { npm } = await underNpm(['proxy', '--upstream', upstreamUrl, '--port', '0', '--host', '127.0.0.1', '--report-dir', dir], /proxy: http:\/\/127\.0\.0\.1:\d+/)
    npm.kill('SIGTERM')
    await expect.poll(() => existsSync(join(dir, 'report.html')), { timeout: 20_000, interval: 200 }).toBe(true)
    upstream.npm.kill('SIGTERM')
    await expect.poll(() => answers(upstreamUrl), { timeout: 20_000, interval: 200 }).toBe(false)
  }, 60_000)
})

describe('a stop signal that comes twice (mock/lib/orphan.ts untilStopped: serve, proxy, certify-client)', () => {
  it('a second SIGINT or SIGTERM while the command stops changes nothing: it ends on its own, its work done (pnpm passes its group\'s Ctrl-C on to its child)', { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoptwin-stop-twice-'))
    dirs.push(dir)
    // Stands for a command stopping: told to stop, it finishes its work when the test says so (stdin), then exits 0.
    const script = join(dir, 'stopping.mjs')
    writeFileSync(script, `import { untilStopped } from ${JSON.stringify(pathToFileURL(join(root, 'mock/lib/orphan.ts')).href)}\nsetInterval(() => {}, 1000)\nconst stopped = untilStopped()\nconsole.log('ready')\nconsole.log(await stopped)\nprocess.stdin.once('data', () => { console.log('finished'); process.exit(0) })\n`)
    for (const [first, second] of [['SIGINT', 'SIGINT'], ['SIGTERM', 'SIGINT'], ['SIGINT', 'SIGTERM']] as const) {
      const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'pipe'] })
      let out = ''
      const waiting: Array<() => void> = []
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString()
        for (const wake of waiting.splice(0)) wake()
      })
      const seen = async (text: string) => {
        while (!out.includes(text)) await new Promise<void>((resolve) => waiting.push(resolve))
      }
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])))
      await seen('ready')
      child.kill(first)
      await seen(`${first} received`)
      // The second comes while the first's stop is under way; with Node's default it ended the process at once.
      child.kill(second)
      child.stdin!.write('go\n')
      expect(await exited, out).toEqual([0, null])
      expect(out).toContain('finished')
    }
  })
})
