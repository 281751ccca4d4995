/**
 * `pin` (bench/targets.ts), which gives a bench's processes cores of their own (bench:proxy-cost, the proxy
 * section's own-core line): a process is put on the cores asked for, and back on every core after. The second
 * case is the one that failed once: a process that pinned itself to one core could not put itself back (it
 * counted the cores it was allowed, one, instead of the machine's), and the load generator stayed on core 0
 * for the rest of the bench. The affinity is read from /proc (Linux), as the kernel has it.
 */
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { pin } from '../bench/targets.ts'

const allowed = (pid: number): string => /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!
const cores = cpus().length
const every = cores > 1 ? `0-${cores - 1}` : '0'

describe('pin: a bench process on the cores asked for, and back', () => {
  it('puts another process on core 0, then back on every core', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' })
    try {
      await new Promise((resolve) => child.once('spawn', resolve))
      const before = allowed(child.pid!)
      expect(pin(child.pid, '0')).toBe(cores > 1)
      if (cores > 1) {
        expect(allowed(child.pid!)).toBe('0')
        expect(pin(child.pid, every)).toBe(true)
        expect(allowed(child.pid!)).toBe(every)
      } else expect(allowed(child.pid!)).toBe(before)
    } finally {
      child.kill()
    }
  })

  it('lets a process that pinned itself to one core put itself back on every core', () => {
    const targets = fileURLToPath(new URL('../bench/targets.ts', import.meta.url))
    const script = `
      import { readFileSync } from 'node:fs'
      import { pin } from ${JSON.stringify(targets)}
      const allowed = () => /Cpus_allowed_list:\\s*(\\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]
      const steps = [pin(process.pid, '0'), allowed(), pin(process.pid, ${JSON.stringify(every)}), allowed()]
      console.log(JSON.stringify(steps))
      process.exit(0)`
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(run.status, run.stderr).toBe(0)
    const steps = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as [boolean, string, boolean, string]
    if (cores > 1) expect(steps).toEqual([true, '0', true, every])
    else expect(steps[0]).toBe(false)
  })
})
