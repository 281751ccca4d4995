/**
 * A socket's timer, judged after the bytes already in are read.
 *
 * Node runs a loop turn's timers before its poll phase, which reads the sockets. After a turn that held
 * the loop past a socket's timeout (a shop's world built on its first read takes seconds on a loaded
 * machine), the timer fired first, though bytes that came in time were waiting unread: a kept-alive
 * connection was destroyed with the client's next request in it (the kernel answered it with a reset),
 * an upstream's answer was called late. `unlessReadThisTurn` judges one phase later, in the same turn.
 */
import type { Socket } from 'node:net'

/**
 * Runs `fn` once this turn's poll phase has read what is already in, unless the socket carried
 * something meanwhile: bytes read (a request, an answer), or written (an idle pooled connection given
 * a new request in that phase: its timer is running again).
 */
export function unlessReadThisTurn(socket: Socket, fn: () => void): void {
  const moved = socket.bytesRead + socket.bytesWritten
  setImmediate(() => {
    if (socket.bytesRead + socket.bytesWritten === moved && !socket.destroyed) fn()
  })
}

/**
 * Idle timeouts for many sockets on one timer: a socket idle `ms` (no byte read or written) has its
 * `onIdle` run, judged as `unlessReadThisTurn` judges, once per idle spell. A socket's own timer
 * (`socket.setTimeout`) is refreshed on every read and write, which costs a busy proxy a few
 * microseconds a request; here a sweep every tenth of `ms` compares each socket's byte counts with
 * the last sweep's. The timeout fires between `ms` and `ms` plus a tenth after the last byte, never before.
 */
export class IdleSweep {
  private readonly watched = new Map<Socket, { moved: number; since: number; fired: boolean; onIdle: () => void }>()
  private readonly timer: NodeJS.Timeout | undefined
  private readonly ms: number
  private readonly now: () => number

  /** `now` and `sweeping` for tests: a clock of theirs, and no timer (they call `sweep`). */
  constructor(ms: number, { now = () => performance.now(), sweeping = true }: { now?: () => number; sweeping?: boolean } = {}) {
    this.ms = ms
    this.now = now
    if (sweeping) this.timer = setInterval(() => this.sweep(), Math.max(1, Math.floor(ms / 10))).unref()
  }

  watch(socket: Socket, onIdle: () => void): void {
    this.watched.set(socket, { moved: socket.bytesRead + socket.bytesWritten, since: this.now(), fired: false, onIdle })
    socket.once('close', () => this.watched.delete(socket))
  }

  /** Sockets watched (a closed one is forgotten). */
  get watching(): number {
    return this.watched.size
  }

  close(): void {
    clearInterval(this.timer)
    this.watched.clear()
  }

  sweep(): void {
    const now = this.now()
    for (const [socket, watch] of this.watched) {
      const moved = socket.bytesRead + socket.bytesWritten
      if (moved !== watch.moved) {
        watch.moved = moved
        watch.since = now
        watch.fired = false
      } else if (!watch.fired && now - watch.since >= this.ms) {
        watch.fired = true
        unlessReadThisTurn(socket, watch.onIdle)
      }
    }
  }
}
