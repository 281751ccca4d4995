/**
 * Holds the event loop (no timer, no I/O callback runs) until `ms` after `since`: what a long
 * synchronous turn does, such as a shop's world built on its first read. Timers due meanwhile fire in
 * the next turn's timers phase, before its poll phase reads what came in (mock/lib/sockets.ts,
 * mock/twin/redis/timeouts.ts).
 */
export function holdLoop(ms: number, since = performance.now()): void {
  // Terminates: performance.now() advances.
  while (performance.now() - since < ms);
}
