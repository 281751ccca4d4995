/**
 * What a replica says at start about a store that may lose its twin (index.ts restores a lost twin
 * from a live replica, but a store that keeps it is the operator's first defence): a maxmemory policy
 * that may evict the twin's keys, and a store that keeps nothing across its own restart. Read from
 * `INFO` (which managed Redis answers); `CONFIG GET save` may be refused there, and is then not said.
 * Never an error: the replica serves either way.
 */
import type { Redis } from 'ioredis'

/** `INFO <section>` as fields (`key:value` lines). */
const fieldsOf = (info: string) => new Map(info.split(/\r?\n/).flatMap((line) => (line.includes(':') && !line.startsWith('#') ? [[line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)] as const] : [])))

/** The lines to say about the store `store` (its name as logs show it) for twin `twin`; none when it keeps the twin. */
export async function durabilityLines(redis: Redis, twin: string, store: string): Promise<string[]> {
  const lines: string[] = []
  const who = `shoptwin: twin '${twin}' on the shared store ${store}`
  const memory = fieldsOf(await redis.info('memory').catch(() => ''))
  const policy = memory.get('maxmemory_policy')
  if (policy && policy !== 'noeviction') {
    const max = Number(memory.get('maxmemory') ?? 0)
    const limit = max > 0 ? `maxmemory ${memory.get('maxmemory_human') ?? max}` : 'maxmemory 0 (no limit now: evicts once one is set)'
    lines.push(`${who}: maxmemory-policy ${policy} (${limit}) may evict the twin's keys under memory pressure; a live replica restores the twin if it does, but set maxmemory-policy noeviction (the store then refuses writes when full instead)`)
  }
  const persistence = fieldsOf(await redis.info('persistence').catch(() => ''))
  const aof = persistence.get('aof_enabled') === '1'
  let save: string | undefined
  try {
    save = ((await redis.config('GET', 'save')) as string[])[1]
  } catch {
    // CONFIG refused (a managed Redis): whether it snapshots is not known, and not said.
  }
  if (!aof && save !== undefined && save.trim() === '') lines.push(`${who}: neither AOF (appendonly no) nor RDB snapshots (save "") are on: a restart of the store loses the twin unless a live replica restores it; turn appendonly yes on`)
  return lines
}
