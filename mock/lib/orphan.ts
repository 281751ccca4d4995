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
