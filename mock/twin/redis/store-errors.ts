/**
 * What a failed call to the store means, in words for the request's 503 and for the operator.
 *
 * A replica finds out at connect whether the store is one server or a Redis Cluster (connect.ts), and
 * keeps that client. Later replies can say the store is no longer what it connected to: a server made
 * a cluster node, or a proxy in front now sending to one. A client for one server does not follow
 * them, and is not switched at run time: the replica's state, lease and commits belong to the store it
 * found, a switch mid-run could commit on a node whose data is another's, and a restart finds the
 * cluster and rebuilds from its log (inferred: the issue says nothing of a change of topology).
 * So every request gets 503 `{"error"}` saying what happened, never a wrong answer or a hang, and the
 * operator one line saying what to do; it ends by itself if the store answers as before again.
 *
 * On a cluster, ioredis gives up after its redirections with "Too many Cluster redirections. Last
 * error: …": said as what it is, the twin's master that does not answer, or a cluster that does not
 * serve the twin's slot (CLUSTERDOWN).
 */
import { reasonOf } from './operator.ts'

/** A reply of a cluster node to a client that does not follow it: `MOVED <slot> <host:port>`, `ASK …`. */
const REDIRECT = /\b(MOVED|ASK) (\d+) (\S+)/
const CLUSTERDOWN = /\bCLUSTERDOWN\b ?(.*)/
const GAVE_UP = /^Too many Cluster redirections\. Last error: (?:\w*Error: )?(.*)$/s

export interface StoreFailure {
  /** The first line of what failed, for the 503 and the operator's line (no secret). */
  reason: string
  /** The store answers as another kind of store than the replica connected to: what the operator must do (one line). */
  topology?: string
}

export interface StoreFailureContext {
  /** Whether the replica connected to a cluster. */
  cluster: boolean
  /** The store as logs show it (no password). */
  store: string
  /** The twin's hash slot, and where the cluster client last knew it served (a cluster: `host:port`). */
  slot: number
  master?: string
  secrets?: Array<string | undefined>
}

/** Reads a failed call: what to say, and whether the store's kind changed under the replica. */
export function storeFailure(error: unknown, { cluster, store, slot, master, secrets = [] }: StoreFailureContext): StoreFailure {
  const said = reasonOf(error, secrets)
  if (!cluster) {
    const redirect = REDIRECT.exec(said)
    if (redirect) {
      const [, kind, movedSlot, to] = redirect
      return {
        reason: `${store} answers as a Redis Cluster node (${kind} ${movedSlot} ${to}: the twin's slot is served by ${to}); this replica connected to it as one server`,
        topology: `point ${store} back at the server the twin was on, or restart this replica once the twin's keys are on that cluster (a replica finds out when it starts whether --store names a cluster)`,
      }
    }
    const down = CLUSTERDOWN.exec(said)
    if (down) {
      return {
        reason: `${store} answers CLUSTERDOWN${down[1] ? ` (${down[1]})` : ''}: it is a node of a Redis Cluster that does not serve the twin's slot ${slot}; this replica connected to it as one server`,
        topology: `point ${store} back at the server the twin was on, or restart this replica once that cluster serves every slot (redis-cli --cluster check) and holds the twin's keys (a replica finds out when it starts whether --store names a cluster)`,
      }
    }
    return { reason: said }
  }
  const gaveUp = GAVE_UP.exec(said)
  const last = gaveUp ? gaveUp[1]!.trim() : said
  const down = CLUSTERDOWN.exec(last)
  if (down) return { reason: `the Redis Cluster does not serve the twin's slot ${slot} (CLUSTERDOWN${down[1] ? ` ${down[1]}` : ''}): a master with no replica to take over is down, or the slot is not assigned` }
  // A reply of the store (a script's error, say) is said as it is; no reply at all is the twin's master not answering.
  if (gaveUp || (error as Error | undefined)?.name !== 'ReplyError') return { reason: `the twin's master ${master ?? `(slot ${slot})`} does not answer (${last || 'no reason given'})` }
  return { reason: said }
}

/** The Redis Cluster hash slot of a key (CRC16/XMODEM of its hash tag, or of the key, mod 16384). */
export function keySlot(key: string): number {
  const open = key.indexOf('{')
  const close = open < 0 ? -1 : key.indexOf('}', open + 1)
  const hashed = Buffer.from(close > open + 1 ? key.slice(open + 1, close) : key)
  let crc = 0
  for (const byte of hashed) {
    crc ^= byte << 8
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc % 16384
}
