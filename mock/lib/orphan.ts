/**
 * A command that runs until it is stopped (serve, proxy, certify-client's recording) stops on SIGINT and
 * SIGTERM, and, under npm, also when the process that started it goes away. `npx shoptwin …`, `npm exec`
 * and `npm start` run it through a shell (`npm_command` is then in the environment): a SIGTERM sent to
 * npm (`kill $!` after `npx shoptwin serve &`, as CI scripts do) goes to that shell, which dies without
 * passing it on, and npm exits. The command lived on, re-parented, holding its port, its reports never
 * written. Its parent changing is that case, and it then stops as on SIGTERM. (A SIGINT sent to a
 * backgrounded npx reaches neither it nor the shell, and npm stays: nothing here can see that. In a
 * terminal, Ctrl-C reaches the whole foreground group.)
 */
import { readFileSync } from 'node:fs'

/** Why the command stops when its npm parent went away, in its stop line. */
export const ORPHANED = 'the npm process that started it ended'

/** The parent of process `pid` (Linux: /proc), or undefined where it cannot be read. */
function parentOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]!.split(' ')[1])
  } catch {
    return undefined
  }
}

/**
 * Calls `stop` once, within `everyMs`, when the process that started this one under npm is gone: this
 * one's parent changed (the shell died, or npm ran it without one), or the shell's parent did (npm
 * exited and the shell lives on). The timer keeps nothing alive.
 */
export function stopWhenOrphaned(stop: () => void, everyMs = 500): void {
  if (process.env.npm_command === undefined) return
  const parent = process.ppid
  const grandparent = parentOf(parent)
  const watch = setInterval(() => {
    if (process.ppid === parent && parentOf(parent) === grandparent) return
    clearInterval(watch)
    stop()
  }, everyMs)
  watch.unref()
}

/**
 * Resolves, with why, when the command is told to stop: SIGINT, SIGTERM, its npm parent gone
 * (`stopWhenOrphaned`), or `signal` aborted. The signal handlers stay: a second SIGINT or SIGTERM while
 * it stops (writes its reports, lets in-flight requests finish) changes nothing. Without them Node's
 * default ended the process at once, reports unwritten, and one stop often comes twice: pnpm passes the
 * SIGINT its process group got on to its child (so shoptwin under `pnpm exec` got Ctrl-C twice, 20 ms
 * apart), and a command run after `--` passes it on too. Whoever must end it at once sends SIGKILL.
 */
export function untilStopped(signal?: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    let stopped = false
    const stop = (why: string) => () => {
      if (stopped) return
      stopped = true
      resolve(why)
    }
    process.on('SIGINT', stop('SIGINT received'))
    process.on('SIGTERM', stop('SIGTERM received'))
    stopWhenOrphaned(stop(ORPHANED))
    signal?.addEventListener('abort', stop('aborted'), { once: true })
  })
}
