/**
 * A Redis Cluster of the test's own: masters from Debian's redis-server (installed by .ci/run) on
 * loopback, each in its own temp dir with its append-only file, joined by `redis-cli --cluster create`
 * (no replicas), stopped at the end. A cluster node needs TCP (its port, and its bus port for the
 * other nodes): both are taken from the OS (a socket on 127.0.0.1:0, closed) and the node started on
 * them; a port taken meanwhile by someone else makes the node fail, and it is started again on others.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './haproxy.ts'

/** test/support/tls's certificate for localhost and 127.0.0.1 (a TLS cluster's nodes present it; clients trust it through NODE_EXTRA_CA_CERTS). */
export const CLUSTER_CERT = fileURLToPath(new URL('./tls/loopback-cert.pem', import.meta.url))
const CLUSTER_KEY = fileURLToPath(new URL('./tls/loopback-key.pem', import.meta.url))
/** redis-server's flags for a node that speaks only TLS, to clients and to the other nodes. */
const tlsNode = (port: number) => ['--port', '0', '--tls-port', String(port), '--tls-cluster', 'yes', '--tls-cert-file', CLUSTER_CERT, '--tls-key-file', CLUSTER_KEY, '--tls-ca-cert-file', CLUSTER_CERT, '--tls-auth-clients', 'no']
/** redis-cli's flags to reach such a node. */
const tlsCli = ['--tls', '--cacert', CLUSTER_CERT]

export interface ClusterNode {
  port: number
  dir: string
  process: ChildProcess
}

export interface TestCluster {
  nodes: ClusterNode[]
  /** `redis://127.0.0.1:P` (`rediss://` over TLS) of one node (a replica finds the cluster from it). */
  seed(i?: number): string
  /** Every node: `redis://127.0.0.1:P1,127.0.0.1:P2,…`. */
  seeds: string
  /** One command by redis-cli on a node (its output), or with `stdin`, one command per line of it. */
  cli(port: number, args: string[], stdin?: string): Promise<string>
  /** The slot of a key (CLUSTER KEYSLOT). */
  slotOf(key: string): Promise<number>
  /** The port of the master serving a slot. */
  nodeOf(slot: number): Promise<number>
  /** Moves a slot and its keys to another master (what `redis-cli --cluster reshard` does, for one slot). */
  moveSlot(slot: number, to: number): Promise<void>
  stop(): Promise<void>
}

const run = (command: string, args: string[], stdin?: string) =>
  new Promise<string>((resolve, reject) => {
    const child = execFile(command, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => (error ? reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`)) : resolve(stdout)))
    if (stdin !== undefined) child.stdin!.end(stdin)
  })

/** Starts one cluster node (a master of no slot until a cluster is made of it) on free ports; started again on others when a port was taken meanwhile. */
export async function startNode(root: string, i: number, { tls = false } = {}): Promise<ClusterNode> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort()
    const bus = await freePort()
    const dir = join(root, `node-${i}-${port}`)
    mkdirSync(dir, { recursive: true })
    const child = spawn('redis-server', [...(tls ? tlsNode(port) : ['--port', String(port)]), '--cluster-port', String(bus), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf'), '--dir', dir, '--save', '', '--appendonly', 'yes', '--logfile', join(dir, 'redis.log')], { stdio: 'ignore' })
    const exited = new Promise<string>((resolve) => child.once('exit', (code) => resolve(`exited ${code}`)))
    const failed = new Promise<string>((resolve) => child.once('error', (e) => resolve(`did not start (${e.message}); .ci/run installs Debian's redis-server`)))
    const deadline = Date.now() + 15_000
    let why = ''
    // Terminates: the deadline bounds the loop.
    for (;;) {
      const answer = await Promise.race([run('redis-cli', [...(tls ? tlsCli : []), '-h', '127.0.0.1', '-p', String(port), 'PING']).catch(() => ''), exited, failed])
      if (answer.startsWith('PONG')) return { port, dir, process: child }
      if (answer.startsWith('exited') || answer.startsWith('did not')) {
        why = answer
        break
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL')
        throw new Error(`redis-server on ${port} did not answer within 15 s`)
      }
      await new Promise((r) => setTimeout(r, 20))
    }
    let log = ''
    try {
      log = readFileSync(join(dir, 'redis.log'), 'utf8')
    } catch {
      // no log: it did not start at all
    }
    if (attempt >= 4 || !/Address already in use/.test(log)) throw new Error(`redis-server (cluster node ${i}) ${why}:\n${log.slice(-2000)}`)
  }
}

/** Starts `masters` nodes and joins them into one cluster whose slots are all served; with `tls`, nodes that speak only TLS (`rediss://` seeds). */
export async function startRedisCluster({ masters = 3, tls = false } = {}): Promise<TestCluster> {
  const cliFlags = tls ? tlsCli : []
  const root = mkdtempSync(join(tmpdir(), 'shoptwin-cluster-'))
  const nodes: ClusterNode[] = []
  const stop = async () => {
    await Promise.all(
      nodes.map(async (node) => {
        if (node.process.exitCode !== null || node.process.signalCode !== null) return
        const exited = new Promise((r) => node.process.once('exit', r))
        node.process.kill('SIGTERM')
        await exited
      }),
    )
    rmSync(root, { recursive: true, force: true })
  }
  try {
    for (let i = 0; i < masters; i++) nodes.push(await startNode(root, i, { tls }))
    await run('redis-cli', [...cliFlags, '--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'])
    // Every node knows every slot's master before a client asks any of them.
    const deadline = Date.now() + 30_000
    for (const node of nodes) {
      // Terminates: the deadline bounds the loop.
      while (!/cluster_state:ok/.test(await run('redis-cli', [...cliFlags, '-h', '127.0.0.1', '-p', String(node.port), 'CLUSTER', 'INFO']))) {
        if (Date.now() > deadline) throw new Error(`cluster node ${node.port} not ok within 30 s`)
        await new Promise((r) => setTimeout(r, 50))
      }
    }
  } catch (error) {
    await stop()
    throw error
  }
  const cli = (port: number, args: string[], stdin?: string) => run('redis-cli', [...cliFlags, '-h', '127.0.0.1', '-p', String(port), ...args], stdin)
  const scheme = tls ? 'rediss' : 'redis'
  const cluster: TestCluster = {
    nodes,
    seed: (i = 0) => `${scheme}://127.0.0.1:${nodes[i]!.port}`,
    seeds: `${scheme}://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    cli,
    slotOf: async (key) => Number((await cli(nodes[0]!.port, ['CLUSTER', 'KEYSLOT', key])).trim()),
    async nodeOf(slot) {
      // CLUSTER NODES: `<id> <ip>:<port>@<bus> <flags> … connected <from>-<to> …`, a line per node.
      for (const line of (await cli(nodes[0]!.port, ['CLUSTER', 'NODES'])).trim().split('\n')) {
        const [, address, flags, , , , , , ...ranges] = line.split(' ')
        if (!flags!.includes('master')) continue
        for (const range of ranges) {
          const [from, to = from] = range.split('-').map(Number)
          if (slot >= from! && slot <= to!) return Number(address!.split('@')[0]!.split(':').at(-1))
        }
      }
      throw new Error(`no master serves slot ${slot}`)
    },
    async moveSlot(slot, to) {
      const from = await cluster.nodeOf(slot)
      const ok = async (port: number, args: string[]) => {
        const out = (await cli(port, args)).trim()
        if (/^(ERR|\(error\))/m.test(out)) throw new Error(`redis-cli -p ${port} ${args.join(' ')}: ${out}`)
        return out
      }
      const fromId = await ok(from, ['CLUSTER', 'MYID'])
      const toId = await ok(to, ['CLUSTER', 'MYID'])
      await ok(to, ['CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', fromId])
      await ok(from, ['CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', toId])
      // Terminates: each round moves the keys it lists; the slot empties.
      for (;;) {
        const keys = (await ok(from, ['CLUSTER', 'GETKEYSINSLOT', String(slot), '100'])).split('\n').filter(Boolean)
        if (keys.length === 0) break
        await ok(from, ['MIGRATE', '127.0.0.1', String(to), '', '0', '5000', 'KEYS', ...keys])
      }
      for (const port of [to, from, ...nodes.map((n) => n.port).filter((p) => p !== to && p !== from)]) await ok(port, ['CLUSTER', 'SETSLOT', String(slot), 'NODE', toId])
    },
    stop,
  }
  return cluster
}
