/**
 * The CLI when the reader of its output goes away (issue 25: `shoptwin conformance --list | head -1`
 * ended with an EPIPE stack trace). Every subcommand: never a stack trace; a command that runs and
 * ends stops at once with 141 (128 + SIGPIPE, as a shell shows coreutils and git); a server serves on
 * and stops on a signal with its usual exit code (mock/cli-output.ts).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMock, type RunningMock } from '../conformance/testing/harness.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const cliPath = join(root, 'mock', 'cli.ts')

interface Run {
  code: number | null
  signal: string | null
  /** What the reader got before it left. */
  read: string
  /** The other stream, read whole. */
  other: string
}

/**
 * Runs `shoptwin <argv>` (sources) with `stream` read by a reader that leaves after `lines` lines
 * (0: before the command writes anything). `whileRunning` gets the lines read and what it returns is
 * awaited before the run is waited for (a server is stopped there).
 */
function runWithReader(argv: string[], { stream = 'stdout', lines = 1, whileRunning }: { stream?: 'stdout' | 'stderr'; lines?: number; whileRunning?: (read: string, pid: number) => Promise<void> } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...argv], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
    const reader = child[stream]
    const otherStream = stream === 'stdout' ? child.stderr : child.stdout
    let read = ''
    let other = ''
    let during: Promise<void> = Promise.resolve()
    otherStream.on('data', (d) => (other += d))
    const leave = () => {
      reader.destroy()
      if (whileRunning) during = whileRunning(read, child.pid!)
    }
    if (lines === 0) leave()
    else
      reader.on('data', (d) => {
        read += d
        if (read.split('\n').length > lines) {
          reader.removeAllListeners('data')
          leave()
        }
      })
    child.on('error', reject)
    child.on('close', (code, signal) => void during.then(() => resolve({ code, signal, read, other }), reject))
  })
}

/** No stack frame, no `Unhandled 'error' event`, nothing of node's crash banner. */
function expectNoTrace(text: string): void {
  expect(text).not.toMatch(/^\s+at /m)
  expect(text).not.toMatch(/Unhandled 'error'|EPIPE|node:events|Node\.js v\d/)
}

let mock: RunningMock
let out: string
beforeAll(async () => {
  mock = await startMock({ rateLimit: false })
  out = await mkdtemp(join(tmpdir(), 'shoptwin-closed-output-'))
})
afterAll(async () => {
  await mock?.close()
  if (out) await rm(out, { recursive: true, force: true })
})

// Every subcommand's stdout, as a command that runs and ends (a server's below).
const ONE_SHOT: Array<[string, () => string[]]> = [
  ['--help', () => ['--help']],
  ['serve --help', () => ['serve', '--help']],
  ['fixtures --help', () => ['fixtures', '--help']],
  ['fixtures --out', () => ['fixtures', '--out', join(out, `world-${Math.random().toString(36).slice(2)}`), '--scale', 'small']],
  ['conformance --help', () => ['conformance', '--help']],
  ['conformance --list', () => ['conformance', '--list']],
  ['conformance (a run)', () => ['conformance', '--base-url', mock.url, '--api-key', 'demo-key', '--shop-id', mock.shopId, '--rules', 'auth']],
  ['conformance --mcp-url --help', () => ['conformance', '--mcp-url', `${mock.url}/mcp`, '--help']],
  ['certify-client --help', () => ['certify-client', '--help']],
  ['certify-client -- <command>', () => ['certify-client', '--scale', 'small', '--', process.execPath, '-e', '']],
  ['proxy --help', () => ['proxy', '--help']],
]

// Every subcommand's one-line usage error, on stderr.
const USAGE_ERRORS: Array<[string, string[]]> = [
  ['unknown command', ['nonsense']],
  ['serve', ['serve', '--bogus']],
  ['fixtures', ['fixtures']],
  ['conformance', ['conformance', '--bogus']],
  ['certify-client', ['certify-client', '--bogus']],
  ['proxy', ['proxy']],
]

describe('a reader that leaves: no stack trace, exit 141 for a command that runs and ends', () => {
  it.each(ONE_SHOT)('%s | head -1: its first line, then no trace, exit 0 (all written before) or 141', async (_name, argv) => {
    const run = await runWithReader(argv(), { lines: 1 })
    expect(run.read.split('\n')[0]).not.toBe('')
    expectNoTrace(run.other)
    expect([0, 141]).toContain(run.code)
  }, 60_000)

  // The reader gone before the first write: every write fails, so the outcome is certain.
  it.each(ONE_SHOT)('%s with its stdout closed before it writes: silent, exit 141', async (_name, argv) => {
    const run = await runWithReader(argv(), { lines: 0 })
    expect(run.other).toBe('')
    expect(run.code).toBe(141)
  }, 60_000)

  it.each(USAGE_ERRORS)('%s: the usage error with stderr closed: silent, exit 141 (stdout read, empty)', async (_name, argv) => {
    const run = await runWithReader(argv, { stream: 'stderr', lines: 0 })
    expect(run.other).toBe('')
    expect(run.code).toBe(141)
  })

  it('a write error other than a reader gone (stdout on /dev/full): one line on stderr, exit 2', async () => {
    const { openSync, closeSync } = await import('node:fs')
    const full = openSync('/dev/full', 'w')
    try {
      const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [cliPath, 'conformance', '--list'], { cwd: root, stdio: ['ignore', full, 'pipe'] })
        let stderr = ''
        child.stderr!.on('data', (d) => (stderr += d))
        child.on('close', (code) => resolve({ code, stderr }))
      })
      expect(run.stderr).toBe('shoptwin: cannot write to stdout: ENOSPC\n')
      expect(run.code).toBe(2)
    } finally {
      closeSync(full)
    }
  })
})

/** A port free a moment ago. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

async function waitForHealth(url: string): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const status = await fetch(`${url}/health`).then((r) => r.status, () => 0)
    if (status) return status
    await new Promise((r) => setTimeout(r, 50))
  }
  return 0
}

// Servers: a reader gone is no reason to stop serving; a signal stops them as usual.
const SERVERS: Array<[string, (port: number) => string[], number]> = [
  ['serve', (port) => ['serve', '--port', String(port), '--scale', 'small'], 0],
  ['proxy', (port) => ['proxy', '--upstream', mock.url, '--port', String(port)], 0],
  // The grade of a /health only: no MUST rule failed, its usual 0.
  ['certify-client (recording)', (port) => ['certify-client', '--port', String(port), '--scale', 'small'], 0],
]

describe('a server whose reader leaves serves on, and stops on SIGTERM with its usual exit code', () => {
  it.each(SERVERS)('%s, stdout closed after the first line and before it writes', async (_name, argv, usual) => {
    for (const lines of [1, 0]) {
      const port = await freePort()
      let health = 0
      const run = await runWithReader(argv(port), {
        lines,
        whileRunning: async (_read, pid) => {
          health = await waitForHealth(`http://127.0.0.1:${port}`)
          process.kill(pid, 'SIGTERM')
        },
      })
      if (lines === 1) expect(run.read).toContain(`127.0.0.1:${port}`)
      // proxy forwards /health to the mock; the others answer it.
      expect(health).toBe(200)
      expect(run.other).toBe('')
      expect(run.code).toBe(usual)
    }
  }, 120_000)
})
