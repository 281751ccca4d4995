/**
 * `--store`'s forms (mock/twin/redis/connect.ts): one server, a Redis Cluster's seed nodes, a socket;
 * and what a replica finds out on connect. The cluster itself runs in `npm run test:replicas`
 * (test/replicas/cluster.test.ts: it needs TCP ports for its nodes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checks } from '../mock/cli-flags.ts'
import { resolveStore, storeHostsFromUrl } from '../mock/twin/redis/connect.ts'
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
