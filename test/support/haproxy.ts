/**
 * Debian's haproxy (installed by .ci/run) running the README's configuration as it is written: the one
 * ```haproxy block of README.md, unchanged. Its addresses, ports and paths are haproxy environment
 * placeholders, `"${NAME-default}"` (haproxy expands them itself when it reads the file), so a test sets
 * the variables and never edits the text. haproxy cannot bind port 0: a free loopback port is picked,
 * and picked again if another process took it first.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { firstShop, type Replica, startReplicas } from './replicas.ts'

const README = fileURLToPath(new URL('../../README.md', import.meta.url))

/** The placeholders the README's configuration must use for every address, port and path, and only them. */
export const HAPROXY_PLACEHOLDERS = ['HAPROXY_SOCKET', 'SHOPTWIN_BIND', 'REPLICA_A', 'REPLICA_B', 'REPLICA_C'] as const
export type HaproxyPlaceholder = (typeof HAPROXY_PLACEHOLDERS)[number]

/** The README's haproxy configuration, byte for byte (the only fenced block marked `haproxy`). */
export function readmeHaproxyConfig(readme = readFileSync(README, 'utf8')): string {
  const blocks = [...readme.matchAll(/^```haproxy\n([\s\S]*?)^```$/gm)]
  if (blocks.length !== 1) throw new Error(`README.md must hold exactly one \`\`\`haproxy block, found ${blocks.length}`)
  return blocks[0]![1]!
}

/** The environment placeholders a configuration uses (`"${NAME-default}"` or `"${NAME}"`), by name. */
export const placeholdersOf = (config: string): string[] => [...new Set([...config.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:-[^}]*)?\}/g)].map((m) => m[1]!))].sort()

/** Debian's haproxy: on PATH, else where Debian puts it. */
export function haproxyBinary(): string {
  if (process.env.HAPROXY) return process.env.HAPROXY
  const onPath = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim()
  if (onPath) return onPath
  if (existsSync('/usr/sbin/haproxy')) return '/usr/sbin/haproxy'
  throw new Error("haproxy is not installed: .ci/run installs Debian's haproxy (apt-get install -y haproxy)")
}

/** `haproxy -c` on a configuration: its exit code and everything it said (warnings included). */
export function checkHaproxyConfig(config: string, env: Partial<Record<HaproxyPlaceholder, string>>): { code: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'shoptwin-haproxy-check-'))
  try {
    const file = join(dir, 'shoptwin.cfg')
    writeFileSync(file, config)
    const run = spawnSync(haproxyBinary(), ['-c', '-f', file], { env: { ...process.env, HAPROXY_SOCKET: join(dir, 'haproxy.sock'), ...env }, encoding: 'utf8' })
    return { code: run.status, output: `${run.stdout}${run.stderr}` }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A loopback port the OS says is free (for a server that cannot bind port 0 itself). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

/** One row of `show stat` for a server of the backend. */
export interface ServerStat {
  /** UP, DOWN, `UP 1/2` (going down), `DOWN 1/2` (coming up), MAINT... */
  status: string
  /** Requests (sessions) in progress on it now. */
  current: number
  /** Sessions it served in all. */
  total: number
  /** Requests retried after a failure on it (`wretr`), and sent to another server instead (`wredis`). */
  retries: number
  redispatches: number
}

export interface Haproxy {
  url: string
  socket: string
  process: ChildProcess
  output(): string
  /** One command of haproxy's runtime API (the `stats socket`); its answer. */
  command(line: string): Promise<string>
  /** `show stat` for the servers of backend `replicas`, by server name. */
  servers(): Promise<Record<string, ServerStat>>
  stop(): Promise<void>
}

/** Sends one line to a runtime API socket and reads the answer to its end (haproxy closes the connection). */
export function runtimeCommand(socket: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(socket)
    let out = ''
    c.on('data', (d) => (out += d))
    c.once('error', reject)
    c.once('end', () => resolve(out))
    c.write(`${line}\n`)
  })
}

/**
 * Starts haproxy in the foreground (`-db`) on a configuration (by default the README's), with the
 * placeholders' values (the bind address is chosen here), and waits until every server of `replicas`
 * is UP by its health check.
 */
export async function startHaproxy({ config = readmeHaproxyConfig(), replicas }: { config?: string; replicas: Record<'REPLICA_A' | 'REPLICA_B' | 'REPLICA_C', string> }): Promise<Haproxy> {
  // Terminates: five ports at most (another process can take a probed port before haproxy binds it).
  for (let attempt = 1; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'shoptwin-haproxy-'))
    const file = join(dir, 'shoptwin.cfg')
    writeFileSync(file, config)
    const socket = join(dir, 'haproxy.sock')
    const port = await freePort()
    const child = spawn(haproxyBinary(), ['-db', '-f', file], { env: { ...process.env, HAPROXY_SOCKET: socket, SHOPTWIN_BIND: `127.0.0.1:${port}`, ...replicas }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout!.on('data', (d) => (out += d))
    child.stderr!.on('data', (d) => (out += d))
    const exited = new Promise<string>((resolve) => {
      child.once('error', (e) => resolve(`haproxy did not start (${e.message}); .ci/run installs Debian's haproxy`))
      child.once('exit', (code, signal) => resolve(`haproxy exited (${code ?? signal}):\n${out}`))
    })
    const haproxy: Haproxy = {
      url: `http://127.0.0.1:${port}`,
      socket,
      process: child,
      output: () => out,
      command: (line) => runtimeCommand(socket, line),
      async servers() {
        const [header, ...rows] = (await runtimeCommand(socket, 'show stat')).trim().split('\n')
        const names = header!.replace(/^# /, '').split(',')
        const at = (row: string[], name: string) => row[names.indexOf(name)]!
        const servers: Record<string, ServerStat> = {}
        for (const row of rows.map((r) => r.split(','))) {
          if (at(row, 'pxname') !== 'replicas' || at(row, 'svname') === 'BACKEND') continue
          servers[at(row, 'svname')] = { status: at(row, 'status'), current: Number(at(row, 'scur')), total: Number(at(row, 'stot')), retries: Number(at(row, 'wretr')), redispatches: Number(at(row, 'wredis')) }
        }
        return servers
      },
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          const gone = new Promise((r) => child.once('exit', r))
          child.kill('SIGTERM')
          await gone
        }
        rmSync(dir, { recursive: true, force: true })
      },
    }
    const ready = (async () => {
      const deadline = Date.now() + 60_000
      // Terminates: the deadline bounds the loop.
      while (Date.now() < deadline) {
        if (child.exitCode !== null || child.signalCode !== null) return false
        const servers = await haproxy.servers().catch(() => ({}) as Record<string, ServerStat>)
        const states = Object.values(servers)
        if (states.length === 3 && states.every((s) => s.status === 'UP')) return true
        await new Promise((r) => setTimeout(r, 50))
      }
      throw new Error(`haproxy's servers were not all UP within 60 s:\n${out}`)
    })()
    const outcome = await Promise.race([ready, exited]).catch(async (error: Error) => {
      // Not ready in time: stopped before the error goes up.
      await haproxy.stop()
      throw error
    })
    if (outcome === true) return haproxy
    const why = typeof outcome === 'string' ? outcome : await exited
    await haproxy.stop()
    if (!/cannot bind|Address already in use/i.test(why) || attempt >= 5) throw new Error(why)
  }
}

/** The servers of the README's backend, in the order of its `server` lines. */
export const NAMES = ['a', 'b', 'c'] as const
export type ServerName = (typeof NAMES)[number]

/** Three replicas of one twin behind haproxy (the README's configuration), as a test drives them. */
export interface HaproxyTwin {
  name: string
  args: string[]
  env: Record<string, string>
  /** The replicas by haproxy's server name (a, b, c: REPLICA_A, REPLICA_B, REPLICA_C); a test may replace one it restarted. */
  replicas: Record<ServerName, Replica>
  haproxy: Haproxy
  shop: string
  stop(): Promise<void>
}

const hostPort = (url: string) => new URL(url).host

/** Three replicas of twin `name` on `store` (`envOf`: a replica's own environment), behind haproxy running the README's configuration. */
export async function startTwinBehindHaproxy({ store, name, args = [], env = {}, envOf = {} }: { store: string; name: string; args?: string[]; env?: Record<string, string>; envOf?: Partial<Record<ServerName, Record<string, string>>> }): Promise<HaproxyTwin> {
  const [first, second, third] = (await startReplicas(3, { store, twin: name, args, env }, (i) => ({ ...envOf[NAMES[i]!] }))) as [Replica, Replica, Replica]
  const replicas = { a: first, b: second, c: third }
  let haproxy: Haproxy
  try {
    haproxy = await startHaproxy({ replicas: { REPLICA_A: hostPort(first.url), REPLICA_B: hostPort(second.url), REPLICA_C: hostPort(third.url) } })
  } catch (error) {
    await Promise.all(Object.values(replicas).map((r) => r.stop()))
    throw error
  }
  const twin: HaproxyTwin = {
    name,
    args,
    env,
    replicas,
    haproxy,
    shop: firstShop(first),
    async stop() {
      await haproxy.stop()
      await Promise.all(Object.values(twin.replicas).map((r) => r.stop()))
    },
  }
  return twin
}
