/**
 * `npm run bench:startup`: the time from spawning a server to its first answer (`GET /health` 200),
 * cold (a new process each run), over several runs, for shoptwin from source (`node mock/cli.ts
 * serve`), shoptwin built (`node bin/shoptwin.mjs serve`, which runs dist/: `npm run build` first),
 * and Prism on the same contract (`prism mock openapi/openapi.yaml`), in one run on one machine.
 * Then, in the same process, the first answer from a shop (`POST /affiliate/crm/list` on the main
 * shop): shoptwin builds a shop's data on its first use, so that answer carries it.
 *
 * Prints min / median / max of each, and the CPU time the server process used until its first answer
 * (user + system, from /proc: less sensitive to other load on the machine than the wall clock).
 * Runs interleave the targets, so a load that comes and goes weighs on each alike. Each target is
 * started once before the measured runs (not counted): Node's compile cache (os.tmpdir()) is then
 * as on any start after the first.
 *
 * Options: STARTUP_RUNS (default 7), STARTUP_TARGETS (default "source,built,prism"). Loopback only.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { API_KEY, HOST, freePort, headersFor } from './targets.ts'

const root = fileURLToPath(new URL('..', import.meta.url))

export type StartupTarget = 'source' | 'built' | 'prism'

/** How each target is started, as a user starts it. */
const COMMANDS: Record<StartupTarget, (port: number) => string[]> = {
  source: (port) => [join(root, 'mock/cli.ts'), 'serve', '--port', String(port), '--host', HOST],
  built: (port) => [join(root, 'bin/shoptwin.mjs'), 'serve', '--port', String(port), '--host', HOST],
  prism: (port) => [join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', join(root, 'openapi/openapi.yaml'), '-p', String(port), '-h', HOST, '-v', 'silent'],
}

export interface StartupRun {
  /** Spawn to the first 200 on /health, ms. */
  firstAnswerMs: number
  /** CPU time (user + system) of the server process by then, ms. */
  cpuMs: number | null
  /** Spawn to the first answer from the main shop, ms. */
  firstShopAnswerMs: number
}

/** CPU time of a process so far (Linux /proc, clock ticks of 10 ms). */
function cpuMsOf(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return null
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

/** One cold start of a target: spawn, poll /health every 5 ms until 200, then one shop request. */
export async function startOnce(target: StartupTarget, shopId: string | undefined): Promise<StartupRun> {
  const port = await freePort()
  const url = `http://${HOST}:${port}`
  const spawned = performance.now()
  const child = spawn(process.execPath, COMMANDS[target](port), { stdio: ['ignore', 'ignore', 'inherit'] })
  const exited = new Promise<never>((_, reject) => child.once('exit', (code, signal) => reject(new Error(`${target} exited (${code ?? signal}) before answering`))))
  exited.catch(() => {})
  try {
    let firstAnswerMs: number | undefined
    while (firstAnswerMs === undefined) {
      const status = await Promise.race([
        fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) }).then(
          async (res) => (await res.arrayBuffer(), res.status),
          () => 0,
        ),
        exited,
      ])
      if (status === 200) firstAnswerMs = performance.now() - spawned
      else if (performance.now() - spawned > 60_000) throw new Error(`${target} did not answer 200 on /health within 60 s`)
      else await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const cpuMs = cpuMsOf(child.pid)
    const res = await fetch(`${url}/affiliate/crm/list`, { method: 'POST', headers: headersFor(shopId ?? 'none'), body: JSON.stringify({ page_size: 50, page_number: 1 }) })
    await res.arrayBuffer()
    return { firstAnswerMs, cpuMs, firstShopAnswerMs: performance.now() - spawned }
  } finally {
    await stop(child)
  }
}

/** The main shop's id (the first of GET /account/shops), read from a running shoptwin. */
async function mainShopId(): Promise<string> {
  const port = await freePort()
  const child = spawn(process.execPath, COMMANDS.source(port), { stdio: ['ignore', 'ignore', 'inherit'] })
  try {
    for (;;) {
      try {
        const res = await fetch(`http://${HOST}:${port}/account/shops`, { headers: { 'x-api-key': API_KEY } })
        return ((await res.json()) as { data: Array<{ shop_id: string }> }).data[0]!.shop_id
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  } finally {
    await stop(child)
  }
}

/** Every target started `runs` times, interleaved, after one unmeasured start each. */
export async function measureStartup(targets: readonly StartupTarget[], runs: number): Promise<Map<StartupTarget, StartupRun[]>> {
  if (targets.includes('built') && !existsSync(join(root, 'dist/mock/cli.js'))) throw new Error('no dist/: run `npm run build` first')
  const shopId = await mainShopId()
  const results = new Map<StartupTarget, StartupRun[]>(targets.map((t) => [t, []]))
  for (const target of targets) await startOnce(target, shopId)
  for (let i = 0; i < runs; i++) {
    for (const target of targets) results.get(target)!.push(await startOnce(target, shopId))
  }
  return results
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b)
export const median = (values: number[]): number => sorted(values)[Math.floor((values.length - 1) / 2)]!

/** `median 0.42 s (min 0.39, max 0.51)` */
export const describeTimes = (ms: number[]): string => {
  const s = sorted(ms)
  const sec = (v: number) => (v / 1000).toFixed(2)
  return `median ${sec(median(ms))} s (min ${sec(s[0]!)}, max ${sec(s[s.length - 1]!)})`
}

/** The table `npm run bench:startup` prints. */
export function startupTable(results: Map<StartupTarget, StartupRun[]>): string[] {
  const lines: string[] = []
  for (const [target, runs] of results) {
    const cpu = runs.map((r) => r.cpuMs).filter((v): v is number => v !== null)
    lines.push(`${target.padEnd(7)} first answer (GET /health 200): ${describeTimes(runs.map((r) => r.firstAnswerMs))}; CPU until then median ${cpu.length ? `${(median(cpu) / 1000).toFixed(2)} s` : 'n/a'}`)
    lines.push(`${''.padEnd(7)} first answer from the main shop (POST /affiliate/crm/list): ${describeTimes(runs.map((r) => r.firstShopAnswerMs))}`)
  }
  return lines
}

if (import.meta.main) {
  const runs = Number(process.env.STARTUP_RUNS ?? 7)
  const targets = (process.env.STARTUP_TARGETS ?? 'source,built,prism').split(',') as StartupTarget[]
  for (const t of targets) if (!Object.hasOwn(COMMANDS, t)) throw new Error(`STARTUP_TARGETS: unknown target ${t} (source, built, prism)`)
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
  console.log(`startup, spawn to first answer, ${runs} cold starts per target, interleaved; Node ${process.version}, ${cpus().length} cores, load average ${load}`)
  const results = await measureStartup(targets, runs)
  for (const line of startupTable(results)) console.log(line)
  const after = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
  console.log(`load average after: ${after}`)
}
