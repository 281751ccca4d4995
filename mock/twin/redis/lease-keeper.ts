/**
 * Keeps a replica's write lease alive from a thread of its own: a write that computes for a long time
 * (a shop's data built on first use, on a loaded machine) blocks the main thread's timers, not this
 * one's, so a live replica keeps its lease; a stopped one (SIGSTOP stops every thread) loses it and is
 * fenced out. Messages: `{ token, ms }` starts renewing the lease under `token`, `{ token: null }` stops.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { clientAt, type StoreAddress, type StoreClient } from './connect.ts'
import { RENEW } from './scripts.ts'

const { address, lease } = workerData as { address: StoreAddress; lease: string }
const redis = clientAt(address, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: (times) => Math.min(50 * times, 1000) }) as StoreClient & { twinRenew(lease: string, token: string, ms: number): Promise<number> }
redis.on('error', () => {})
redis.defineCommand('twinRenew', { numberOfKeys: 1, lua: RENEW })

let timer: ReturnType<typeof setInterval> | undefined
parentPort!.on('message', ({ token, ms }: { token: string | null; ms?: number }) => {
  if (timer) clearInterval(timer)
  timer = undefined
  if (token === null) return
  timer = setInterval(() => void redis.twinRenew(lease, token, ms!).catch(() => {}), Math.max(50, ms! / 3))
})
parentPort!.on('close', () => redis.disconnect())
