/**
 * Keeps a replica's write lease alive from a thread of its own: a write that computes for a long time
 * (a shop's data built on first use, on a loaded machine) blocks the main thread's timers, not this
 * one's, so a live replica keeps its lease; a stopped one (SIGSTOP stops every thread) loses it and is
 * fenced out.
 *
 * The lease held is read from shared memory (`heldLease`), not sent in messages: a message wakes the
 * thread through the kernel, twice per write, which costs more than the write's own round trips on a
 * busy machine. Every third of the lease's time, the thread renews the token it finds there (a token
 * given up meanwhile is renewed by no one: the script checks it holds the lease).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { clientAt, type StoreAddress, type StoreClient } from './connect.ts'
import { RENEW } from './scripts.ts'

/** Room for a token (`<replica>:<uuid>`, ASCII). */
const TOKEN_BYTES = 128
const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** Epoch ms, the same in both threads (each has its own performance.now() origin). */
export const epochNow = () => performance.timeOrigin + performance.now()

/**
 * The lease a replica holds, in memory its keeper thread reads: a seqlock (the version is odd while
 * the token is written), the token's length (0: none held), its bytes; and the instant (epoch ms) the
 * last take or renewal that the store confirmed was sent: the lease is the replica's until at least
 * that instant plus its time, whatever happened since (a stop, a pause), on the store's clock.
 */
export function heldLease(buffer = new SharedArrayBuffer(8 + TOKEN_BYTES + 8)) {
  const header = new Int32Array(buffer, 0, 2)
  const bytes = new Uint8Array(buffer, 8, TOKEN_BYTES)
  const confirmed = new BigInt64Array(buffer, 8 + TOKEN_BYTES, 1)
  return {
    buffer,
    /** A take or renewal sent at `at` (epoch ms) was confirmed by the store. */
    confirm(at: number) {
      Atomics.store(confirmed, 0, BigInt(Math.floor(at)))
    },
    /** When the last confirmed take or renewal was sent (epoch ms). */
    confirmedAt: () => Number(Atomics.load(confirmed, 0)),
    set(token: string | null) {
      Atomics.add(header, 0, 1)
      const length = token === null ? 0 : encoder.encodeInto(token, bytes).written
      Atomics.store(header, 1, length)
      Atomics.add(header, 0, 1)
    },
    get(): string | null {
      // Terminates: the writer holds the lock for a few instructions.
      for (;;) {
        const before = Atomics.load(header, 0)
        if (before % 2 === 1) continue
        const length = Atomics.load(header, 1)
        const token = length === 0 ? null : decoder.decode(bytes.slice(0, length))
        if (Atomics.load(header, 0) === before) return token
      }
    },
  }
}

// The thread's part (the main thread imports only `heldLease`).
if (parentPort && (workerData as { leaseKeeper?: boolean } | null)?.leaseKeeper === true) {
  const { address, lease, ms, shared } = workerData as { address: StoreAddress; lease: string; ms: number; shared: SharedArrayBuffer }
  const redis = clientAt(address, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: (times) => Math.min(50 * times, 1000) }) as StoreClient & { twinRenew(lease: string, token: string, ms: number): Promise<number> }
  redis.on('error', () => {})
  redis.defineCommand('twinRenew', { numberOfKeys: 1, lua: RENEW })
  const held = heldLease(shared)
  setInterval(() => {
    const token = held.get()
    if (token === null) return
    const sent = epochNow()
    redis.twinRenew(lease, token, ms).then(
      (renewed) => {
        // Still the token held (not one given up meanwhile), and the store extended it.
        if (renewed === 1 && held.get() === token) held.confirm(sent)
      },
      () => {},
    )
  }, Math.max(50, ms / 3))
  parentPort.on('close', () => redis.disconnect())
}
