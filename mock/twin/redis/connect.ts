/**
 * The shared store's connections: one Redis server (Redis 7, Valkey), or a Redis Cluster.
 *
 * `--store` names one server or a cluster's seed nodes:
 *   redis://[USER:PASSWORD@]HOST:PORT[/DB]          one server, or any node of a cluster (found out on connect)
 *   redis://[USER:PASSWORD@]H1:P1,H2:P2,…           seed nodes of a cluster (any one that answers is enough)
 *   rediss://…, valkey://…                          the same over TLS / by Valkey's name
 *   unix:///path/to/redis.sock[?db=N]               one server on its socket
 * A cluster is found out on connect: the first seed that answers says `cluster_enabled:1` in INFO
 * (or, if INFO is denied, answers CLUSTER INFO). Every connection of the store is then a Cluster
 * client (ioredis), which follows MOVED and ASK and refreshes its map of slots; a twin's keys and
 * channel share its hash tag, so each command, pipeline and script goes to the one node that serves
 * the twin's slot. News goes on sharded pub/sub (SSUBSCRIBE/SPUBLISH), on one server as on a
 * cluster: the message stays on the twin's node (classic PUBLISH is sent to every node of a
 * cluster), and SPUBLISH counts every subscriber of the channel (the flush barrier waits for that
 * many), where a cluster's PUBLISH counts only those on the node it was sent to.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis'
import { networkErrorText } from '../../lib/network-errors.ts'
import { redactStoreUrl } from '../../lib/redact-url.ts'
import { judgeTimeoutsAfterReads } from './timeouts.ts'

judgeTimeoutsAfterReads()

/** A connection to the store: one server's client, or a cluster's. */
export type StoreClient = Redis | Cluster

/** Where the store is, as plain data (what a worker thread can be given). */
export type StoreAddress =
  | { cluster: false; options: RedisOptions }
  /** `nodes`: the seeds first given; `options`: what every node's connection needs (auth, TLS). */
  | { cluster: true; nodes: Array<{ host: string; port: number }>; options: RedisOptions }

const FORMS = 'redis://HOST:PORT[/DB], redis://HOST:PORT,HOST:PORT,… (a Redis Cluster\'s nodes) or unix:///path/to/redis.sock'

/** The store's URL with its password hidden (what logs and metrics show). */
export { redactStoreUrl }

/** The options of each host the URL names (a cluster's seeds: several; one server: one). */
export function storeHostsFromUrl(url: string): RedisOptions[] {
  const m = /^(redis|rediss|valkey):\/\/(?:([^@/]*)@)?([^/?#]*)(\/[^?#]*)?$/.exec(url)
  if (!m) return [redisOptionsFromUrl(url)]
  const [, scheme, auth, hosts, path = ''] = m
  if (!hosts!.includes(',')) return [redisOptionsFromUrl(url)]
  return hosts!.split(',').map((host) => {
    if (!host) throw new Error(`--store: an empty host in ${redactStoreUrl(url)}; write ${FORMS}`)
    return redisOptionsFromUrl(`${scheme}://${auth !== undefined ? `${auth}@` : ''}${host}${path}`)
  })
}

/** `redis://[:password@]host:port[/db]`, `rediss://…`, `unix:///path/to/redis.sock[?db=N]` (one host). */
export function redisOptionsFromUrl(url: string): RedisOptions {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new Error(`--store must be ${FORMS}, got ${redactStoreUrl(url)}`)
  }
  const db = (text: string | null) => {
    if (text === null || text === '') return 0
    if (!/^\d+$/.test(text)) throw new Error(`--store: the database must be a number, got ${text}`)
    return Number(text)
  }
  const auth = { ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}), ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}) }
  if (parsed.protocol === 'unix:') return { path: decodeURIComponent(parsed.pathname), db: db(parsed.searchParams.get('db')), ...auth }
  if (parsed.protocol === 'redis:' || parsed.protocol === 'rediss:' || parsed.protocol === 'valkey:') {
    if (!parsed.hostname) throw new Error(`--store needs a host: ${FORMS}, got ${redactStoreUrl(url)}`)
    return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: parsed.port ? Number(parsed.port) : 6379, db: db(parsed.pathname.replace(/^\//, '')), ...auth, ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}) }
  }
  throw new Error(`--store must be ${FORMS}, got ${redactStoreUrl(url)}`)
}

const where = (o: RedisOptions) => (o.path ? o.path : `${o.host}:${o.port}`)

/**
 * Why a connection to `host` failed, with what to do where the cause is plain: a TLS certificate this
 * machine does not trust (as the proxy and conformance say it, mock/lib/network-errors.ts), and TLS
 * spoken to a plain port or plain TCP to a TLS port (managed Redis services take TLS only). A Redis
 * TLS port closes a plain connection at once; a plain port never answers a TLS handshake.
 */
export function connectFailureText(host: RedisOptions, error: NodeJS.ErrnoException): string {
  const code = error.code ?? ''
  const certificate = networkErrorText(code)
  if (certificate !== code) return certificate
  if (code === '' && /^NOAUTH\b/.test(error.message)) return `NOAUTH: the store asks for a password; give it in the URL, redis://[USER]:PASSWORD@HOST:PORT[/DB]`
  if (host.tls && code === 'ETIMEDOUT') return `${error.message}: no answer to the TLS handshake; if the store's port takes plain TCP, the URL is redis://`
  if (!host.tls && !host.path && (code === 'ECONNRESET' || code === 'EPIPE')) return `${error.message}: the store closed the connection at once; if its port takes TLS, the URL is rediss://`
  return error.message
}
/** What every connection to a host needs besides its address. */
const common = ({ username, password, tls, enableReadyCheck }: RedisOptions): RedisOptions => ({ ...(username ? { username } : {}), ...(password ? { password } : {}), ...(tls ? { tls } : {}), ...(enableReadyCheck === false ? { enableReadyCheck } : {}) })

interface Probe {
  cluster: boolean
  version: string | undefined
  /** INFO is denied to this user (an ACL without @dangerous): the connections skip ioredis's ready check, which reads INFO and warns on the console when it cannot. */
  infoDenied: boolean
}

/** Asks one host whether it is a cluster node, and which Redis it runs. */
async function probe(host: RedisOptions, connectTimeout: number): Promise<Probe> {
  const client = new Redis({ ...host, enableReadyCheck: false, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout, commandTimeout: connectTimeout, retryStrategy: () => null })
  // What went wrong (connect() itself says only that the connection closed).
  let failure: Error | undefined
  client.on('error', (error: Error) => (failure ??= error))
  try {
    await client.connect().catch((error: Error) => {
      throw failure ?? error
    })
    let info: string
    try {
      info = await client.info()
    } catch {
      // INFO denied (an ACL): a cluster node answers CLUSTER INFO, a single server refuses it.
      const cluster = await client.call('CLUSTER', 'INFO').then(
        () => true,
        () => false,
      )
      return { cluster, version: undefined, infoDenied: true }
    }
    return { cluster: /^cluster_enabled:1\s*$/m.test(info), version: /^redis_version:(\S+)/m.exec(info)?.[1], infoDenied: false }
  } finally {
    client.disconnect()
  }
}

/** The store's address: its hosts as given, and what the first that answers says it is (a cluster node or one server). */
export async function resolveStore(url: string, { connectTimeout = 3000 } = {}): Promise<StoreAddress> {
  const hosts = storeHostsFromUrl(url)
  const failures: string[] = []
  for (const host of hosts) {
    let found: Probe
    try {
      found = await probe(host, connectTimeout)
    } catch (error) {
      const text = connectFailureText(host, error as NodeJS.ErrnoException)
      failures.push(hosts.length > 1 ? `${where(host)}: ${text}` : text)
      continue
    }
    // Sharded pub/sub (the twin's news and flush barrier) came with Redis 7.0; Valkey says 7.2.
    if (found.version && Number(found.version.split('.')[0]) < 7) throw new Error(`the shared store needs Redis 7 or later (sharded pub/sub), ${where(host)} runs ${found.version}`)
    if (!found.cluster) {
      if (hosts.length > 1) throw new Error(`--store names several hosts, but ${where(host)} is not a Redis Cluster node (cluster_enabled:0); name one server, or the nodes of a cluster`)
      return { cluster: false, options: found.infoDenied ? { ...host, enableReadyCheck: false } : host }
    }
    if (host.path) throw new Error(`${where(host)} is a Redis Cluster node: a cluster is reached over TCP, --store redis://HOST:PORT`)
    if (host.db) throw new Error(`--store: a Redis Cluster has only database 0, got /${host.db}`)
    return { cluster: true, nodes: hosts.map((h) => ({ host: h.host!, port: h.port! })), options: common(found.infoDenied ? { ...host, enableReadyCheck: false } : host) }
  }
  throw new Error(failures.join('; '))
}

/**
 * How a connection behaves (what `new Redis` takes besides where the server is); on a cluster,
 * the same goes to each node's connection, and `retryStrategy` becomes the cluster's.
 */
export type ConnectionBehaviour = Omit<RedisOptions, 'host' | 'port' | 'path' | 'db' | 'username' | 'password' | 'tls'> & {
  /** A cluster client that subscribes (SSUBSCRIBE): one subscriber connection per master. */
  subscriber?: boolean
}

/** A new connection to the store (not connected when `lazyConnect`). */
export function clientAt(address: StoreAddress, { subscriber = false, ...behaviour }: ConnectionBehaviour = {}): StoreClient {
  if (!address.cluster) return new Redis({ ...address.options, ...behaviour })
  const { retryStrategy, enableOfflineQueue, lazyConnect, enableReadyCheck, ...perNode } = behaviour
  const options: ClusterOptions = {
    ...(lazyConnect !== undefined ? { lazyConnect } : {}),
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    ...(enableReadyCheck !== undefined ? { enableReadyCheck } : {}),
    ...(retryStrategy ? { clusterRetryStrategy: (times: number) => retryStrategy(times) } : {}),
    ...(subscriber ? { shardedSubscribers: true } : {}),
    // A failover or a slot's move: ioredis follows MOVED/ASK and asks the cluster for its map again.
    slotsRefreshTimeout: behaviour.connectTimeout ?? 3000,
    redisOptions: { ...address.options, ...perNode },
  }
  const cluster = new Cluster(address.nodes, options)
  made.set(cluster, { address, behaviour: { subscriber, ...behaviour } })
  return cluster
}

/** The address and behaviour each cluster client was made with (ioredis keeps its seeds private). */
const made = new WeakMap<Cluster, { address: StoreAddress; behaviour: ConnectionBehaviour }>()

/** Connects to the store named by `url` with the given behaviour; a cluster is found out on the way. Not yet connected when `lazyConnect`. */
export async function storeClient(url: string, behaviour: ConnectionBehaviour): Promise<StoreClient> {
  return clientAt(await resolveStore(url, behaviour.connectTimeout ? { connectTimeout: behaviour.connectTimeout } : {}), behaviour)
}

/** Where a client connects (what another connection, or a worker thread, is made from). */
export function addressOf(client: StoreClient): StoreAddress {
  if (client instanceof Cluster) {
    const known = made.get(client)
    if (!known) throw new Error('a cluster client not made by clientAt')
    return known.address
  }
  const { host, port, path, db } = client.options
  return { cluster: false, options: { ...(path ? { path } : { host, port }), db, ...common(client.options) } }
}

/** Another connection like `client` (its behaviour too), with `overrides`. */
export function duplicateOf(client: StoreClient, overrides: ConnectionBehaviour = {}): StoreClient {
  if (client instanceof Cluster) {
    const known = made.get(client)
    if (!known) throw new Error('a cluster client not made by clientAt')
    // No ready check (CLUSTER INFO) on the replica's other connections: they connect in the
    // background, maybe while the replica builds its state, and a check answered while its thread
    // was busy would time out and drop the connection (the main one checked the cluster already).
    return clientAt(known.address, { ...known.behaviour, enableReadyCheck: false, ...overrides })
  }
  const { subscriber, ...rest } = overrides
  // A server's client sends its subscriptions again on each reconnection and does not catch a refusal
  // (a MOVED from an address that now leads to a cluster node): the rejection would end the process.
  // `subscribed` sends them again itself.
  return client.duplicate(subscriber ? { ...rest, autoResubscribe: false } : rest)
}

/**
 * A subscriber's connection (SSUBSCRIBE): it waits for the store rather than fail (a subscription sent
 * before it is ready goes once it is, and again after each reconnection), and no command timeout (an
 * answer the replica's busy thread reads late is not a lost store).
 */
export const SUBSCRIBER: ConnectionBehaviour = { subscriber: true, lazyConnect: false, enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined }

/** How long a replica waits at start for its subscriptions (ms); the client goes on trying after it. */
export const SUBSCRIBE_WAIT_MS = 5000

/**
 * Subscribes `subscriber` to a sharded channel: resolves once it is subscribed, or could not be
 * (the client subscribes again on reconnection), or after SUBSCRIBE_WAIT_MS; never rejects. Resolves
 * to the server's refusal when the store's user may not use the channel (NOPERM: an ACL without it),
 * which no retry mends.
 */
export function subscribed(subscriber: StoreClient, channel: string): Promise<Error | undefined> {
  if (!(subscriber instanceof Cluster)) {
    // Again on each reconnection (duplicateOf turned the client's own resubscription off), a refusal caught.
    let connections = subscriber.status === 'ready' ? 1 : 0
    subscriber.on('ready', () => {
      if (connections++ > 0) subscriber.ssubscribe(channel).catch(() => {})
    })
  }
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    subscriber.ssubscribe(channel).then(
      () => undefined,
      (error: Error) => (isPermissionRefusal(error) ? error : undefined),
    ),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), SUBSCRIBE_WAIT_MS)
      timer.unref()
    }),
  ]).finally(() => clearTimeout(timer))
}

/** The store refused a command for the user's ACL (keys, channels or the command itself). */
export const isPermissionRefusal = (error: unknown): error is Error => error instanceof Error && /^NOPERM\b/.test(error.message)

/**
 * What a replica says when the store's user may not do what a twin needs: its keys and channel share
 * the prefix `st:{tw:NAME}:`, and it runs scripts and sharded pub/sub.
 */
export function permissionRefusal(error: Error, keyPrefix: string): Error {
  return new Error(`the store's user may not do what the twin needs (${error.message}): its ACL needs the twin's keys and channel, ~${keyPrefix}* and &${keyPrefix}* (or ~* &*; Redis 7 gives a new user no channel unless told), and the scripting and pub/sub commands (+@all -@dangerous is enough)`)
}

/** How long a replica waits at start for a connection made in the background (ms). */
export const READY_WAIT_MS = 15_000

/** Resolves when `client` is ready (now, or after its reconnections), or says what it is after `ms`. */
export function readyWithin(client: StoreClient, ms: number, what: string): Promise<void> {
  if (client.status === 'ready') return Promise.resolve()
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', ready)
      reject(new Error(`${what} is ${client.status} after ${ms / 1000} s`))
    }, ms)
    const ready = () => {
      clearTimeout(timer)
      resolve()
    }
    client.once('ready', ready)
  })
}
