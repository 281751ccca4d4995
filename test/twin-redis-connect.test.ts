/**
 * `--store`'s forms (mock/twin/redis/connect.ts): one server, a Redis Cluster's seed nodes, a socket;
 * and what a replica finds out on connect. The cluster itself runs in `npm run test:replicas`
 * (test/replicas/cluster.test.ts: it needs TCP ports for its nodes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checks } from '../mock/cli-flags.ts'
import { resolveStore, storeHostsFromUrl } from '../mock/twin/redis/connect.ts'
import { keySlot, storeFailure } from '../mock/twin/redis/store-errors.ts'
import { startRedis, type TestRedis } from './support/redis.ts'

let redis: TestRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

describe('--store URLs', () => {
  it('one host, or a cluster\'s seed nodes sharing credentials, TLS and database', () => {
    expect(storeHostsFromUrl('redis://127.0.0.1:7000')).toEqual([{ host: '127.0.0.1', port: 7000, db: 0 }])
    expect(storeHostsFromUrl('redis://h1:7000,h2,[::1]:7002')).toEqual([
      { host: 'h1', port: 7000, db: 0 },
      { host: 'h2', port: 6379, db: 0 },
      { host: '::1', port: 7002, db: 0 },
    ])
    expect(storeHostsFromUrl('rediss://app:s3cret@h1:7000,h2:7001/0')).toEqual([
      { host: 'h1', port: 7000, db: 0, username: 'app', password: 's3cret', tls: {} },
      { host: 'h2', port: 7001, db: 0, username: 'app', password: 's3cret', tls: {} },
    ])
    expect(storeHostsFromUrl('unix:///run/redis.sock?db=2')).toEqual([{ path: '/run/redis.sock', db: 2 }])
  })

  it('the flag check takes the same forms and refuses a list with an empty host, without leaking a password', () => {
    for (const ok of ['redis://h:1', 'redis://h1:1,h2:2', 'redis://:pw@h1:1,h2:2/0', 'valkey://h1:1,h2:2', 'unix:///x.sock']) expect(checks.storeUrl(ok), ok).toBeUndefined()
    for (const bad of ['redis://h1:1,,h2:2', 'redis://h1:1,', 'redis:///x', 'http://h:1']) expect(checks.storeUrl(bad), bad).toMatch(/redis:\/\/HOST:PORT,HOST:PORT/)
    expect(() => storeHostsFromUrl('redis://:s3cret@h1:1,,h2')).toThrow(/REDACTED/)
    expect(() => storeHostsFromUrl('redis://:s3cret@h1:1,,h2')).not.toThrow(/s3cret/)
  })
})

describe('what a replica finds out on connect', () => {
  it('a single server is one server (cluster_enabled:0)', async () => {
    expect(await resolveStore(redis.url)).toEqual({ cluster: false, options: { path: redis.socket, db: 0 } })
  })

  it('seed nodes none of which answers: refused, naming each and why', async () => {
    const hosts = `redis://127.0.0.1:1,127.0.0.1:2`
    await expect(resolveStore(hosts, { connectTimeout: 1000 })).rejects.toThrow(/127\.0\.0\.1:1: connect ECONNREFUSED.*127\.0\.0\.1:2: connect ECONNREFUSED/)
  })
})

describe('a failed call to the store, said as what it is (mock/twin/redis/store-errors.ts)', () => {
  const server = { cluster: false, store: 'redis://127.0.0.1:7000/0', slot: 8325, secrets: ['s3cret'] }
  const replyError = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' })
  it.each([
    ['one server that answers MOVED: a cluster node now; what to do', server, replyError('MOVED 8325 127.0.0.1:7001'), /^redis:\/\/127\.0\.0\.1:7000\/0 answers as a Redis Cluster node \(MOVED 8325 127\.0\.0\.1:7001: the twin's slot is served by 127\.0\.0\.1:7001\); this replica connected to it as one server$/, /^point redis:\/\/127\.0\.0\.1:7000\/0 back at the server the twin was on, or restart this replica/],
    ['one server that answers ASK', server, replyError('ASK 8325 127.0.0.1:7002'), /answers as a Redis Cluster node \(ASK 8325 127\.0\.0\.1:7002/, /restart this replica/],
    ['one server that answers CLUSTERDOWN', server, replyError('CLUSTERDOWN Hash slot not served'), /^redis:\/\/127\.0\.0\.1:7000\/0 answers CLUSTERDOWN \(Hash slot not served\): it is a node of a Redis Cluster that does not serve the twin's slot 8325/, /once that cluster serves every slot/],
    ['one server away: the client\'s reason', server, new Error('connect ECONNREFUSED 127.0.0.1:7000'), /^connect ECONNREFUSED 127\.0\.0\.1:7000$/, undefined],
    ['a cluster whose client gave up on the twin\'s master: named, not "Too many Cluster redirections"', { ...server, cluster: true, master: '127.0.0.1:7002' }, new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'), /^the twin's master 127\.0\.0\.1:7002 does not answer \(Connection is closed\.\)$/, undefined],
    ['a cluster whose master timed out', { ...server, cluster: true, master: '127.0.0.1:7002' }, new Error('Command timed out'), /^the twin's master 127\.0\.0\.1:7002 does not answer \(Command timed out\)$/, undefined],
    ['a cluster that does not serve the twin\'s slot', { ...server, cluster: true }, new Error('Too many Cluster redirections. Last error: ReplyError: CLUSTERDOWN The cluster is down'), /^the Redis Cluster does not serve the twin's slot 8325 \(CLUSTERDOWN The cluster is down\)/, undefined],
    ['a script\'s error on a cluster: as it is, no password', { ...server, cluster: true }, replyError('ERR auth s3cret failed'), /^ERR auth REDACTED failed$/, undefined],
  ])('%s', (_title, context, error, reason, topology) => {
    const said = storeFailure(error, context)
    expect(said.reason).toMatch(reason)
    if (topology) expect(said.topology).toMatch(topology)
    else expect(said.topology).toBeUndefined()
  })

  it("the twin's slot is Redis Cluster's (CRC16 of the hash tag, mod 16384)", () => {
    // The check value of CRC16/XMODEM, and slots from the Redis Cluster specification.
    expect(keySlot('123456789')).toBe(0x31c3)
    expect(keySlot('foo')).toBe(12182)
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'))
    expect(keySlot('st:{tw:turned}:head')).toBe(keySlot('tw:turned'))
    // An empty first tag: the whole key is hashed; the tag ends at the first '}'.
    expect(keySlot('foo{}{bar}')).not.toBe(keySlot('bar'))
    expect(keySlot('foo{{bar}}zap')).toBe(keySlot('{bar'))
  })
})
