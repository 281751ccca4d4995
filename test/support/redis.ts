/**
 * A Redis server of the test's own (Debian's redis-server, installed by .ci/run): no TCP port, a unix
 * socket in a temp dir, append-only file on (unless `persistence: false`: then a restart empties it),
 * stopped at the end. No test skips itself for a missing redis-server: it fails with the reason.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface TestRedis {
  /** `unix:///…/redis.sock`, what `--store` takes. */
  url: string
  socket: string
  dir: string
  process: ChildProcess
  /** Stops the server (SIGTERM; it writes its AOF) and, with `remove`, deletes its dir. */
  stop(options?: { remove?: boolean }): Promise<void>
  /** Starts it again on the same dir and socket (what it had survives, by its AOF; nothing without persistence). */
  restart(): Promise<void>
}

const ping = (socket: string) =>
  new Promise<boolean>((resolve) => {
    const c = connect(socket)
    c.once('error', () => resolve(false))
    c.once('connect', () => c.write('PING\r\n'))
    c.once('data', (d) => {
      c.destroy()
      resolve(d.toString().startsWith('+PONG'))
    })
  })

export interface RedisOptions {
  /** AOF on (the default); false: neither AOF nor RDB snapshots, so a restart starts empty. */
  persistence?: boolean
  /** More of the server's flags (`--maxmemory-policy`, `allkeys-lru`). */
  args?: string[]
}

async function launch(dir: string, socket: string, { persistence = true, args = [] }: RedisOptions): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--dir', dir, '--appendonly', persistence ? 'yes' : 'no', '--save', '', '--logfile', join(dir, 'redis.log'), ...args], { stdio: 'ignore' })
  const failed = new Promise<never>((_, reject) => child.once('error', (e) => reject(new Error(`redis-server did not start (${e.message}); .ci/run installs Debian's redis-server`))))
  const deadline = Date.now() + 15_000
  // Terminates: the deadline bounds the loop.
  while (!(await Promise.race([ping(socket), failed]))) {
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on ${socket} within 15 s`)
    await new Promise((r) => setTimeout(r, 20))
  }
  return child
}

export async function startRedis(options: RedisOptions = {}): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'shoptwin-redis-'))
  const socket = join(dir, 'redis.sock')
  const redis: TestRedis = {
    url: `unix://${socket}`,
    socket,
    dir,
    process: await launch(dir, socket, options),
    async stop({ remove = true } = {}) {
      const child = redis.process
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await exited
      }
      if (remove) rmSync(dir, { recursive: true, force: true })
    },
    async restart() {
      await redis.stop({ remove: false })
      redis.process = await launch(dir, socket, options)
    },
  }
  return redis
}

/** One command over the server's socket (RESP); the raw reply. */
export function redisCommand(socket: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(socket)
    let out = ''
    c.on('data', (d) => {
      out += d
      if (out.endsWith('\r\n')) {
        c.end()
        resolve(out)
      }
    })
    c.on('error', reject)
    c.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`)
  })
}
