/**
 * A store command's timeout, judged after the replies already in have been read.
 *
 * ioredis times a command out in a timer (`commandTimeout`). Node runs a loop turn's timers before its
 * poll phase, which reads the sockets: after a turn that held the loop past the timeout (a shop's
 * world built on its first read takes seconds on a loaded machine), the timer fired first and the
 * command was refused as "timed out" although the store's reply was already waiting in the socket: a
 * 503 for a request the store had served in time. The same class as the server's keep-alive close
 * (mock/server.ts): a timer must not judge I/O that arrived while the loop was held.
 *
 * Here the timer only schedules the verdict for the check phase of the same turn (`setImmediate`),
 * after the poll phase: a reply read there settles the command first. A store that does not answer
 * (stopped, stalled, cut off) still times the command out, one turn later.
 */
import { Command } from 'ioredis'

interface TimedCommand {
  isSettled: boolean
  reject(error: Error): void
  _commandTimeoutTimer?: NodeJS.Timeout
}

let installed = false

/** Installs the judgement on ioredis's commands (once; every connection of the store uses it). */
export function judgeTimeoutsAfterReads(): void {
  if (installed) return
  installed = true
  // ioredis 6 `Command#setTimeout` (built/Command.js): the timer is kept in `_commandTimeoutTimer`,
  // which the command clears when it settles; the same fields, the verdict one phase later.
  ;(Command.prototype as unknown as { setTimeout(this: TimedCommand, ms: number): void }).setTimeout = function (ms) {
    if (this._commandTimeoutTimer) return
    this._commandTimeoutTimer = setTimeout(() => {
      setImmediate(() => {
        if (!this.isSettled) this.reject(new Error('Command timed out'))
      })
    }, ms)
  }
}
