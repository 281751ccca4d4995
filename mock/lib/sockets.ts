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
