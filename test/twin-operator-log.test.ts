/**
 * The lines an operator of a shared twin reads (mock/twin/redis/operator.ts): one when an episode of
 * trouble starts, none while it goes on (a reminder at most once a minute), one when it ends; the
 * reasons they give never carry a secret. The same lines from real replicas, with Redis killed and
 * brought back: test/replicas/operator.test.ts (`npm run test:replicas`).
 */
import { describe, expect, it } from 'vitest'
import { createOperatorWatch, episode, lostText, reasonOf } from '../mock/twin/redis/operator.ts'
import { storeFailure } from '../mock/twin/redis/store-errors.ts'

const texts = { start: (why: string) => `start ${why}`, still: (why: string, n: number, ms: number) => `still ${why} ${n} ${ms}`, end: (n: number, ms: number) => `end ${n} ${ms}` }

describe('operator lines: once per episode', () => {
  it('the first failure is said, the next ones counted, a reminder once a minute at most, the end once; a second episode the same', () => {
    let now = 0
    const lines: string[] = []
    const e = episode((line) => lines.push(line), texts, { now: () => now })
    e.ok()
    expect(lines).toEqual([])
    for (let i = 0; i < 500; i++) {
      e.fail(`down ${i}`)
      now += 100
    }
    // 50 s of failures: the start alone.
    expect(lines).toEqual(['start down 0'])
    for (let i = 0; i < 200; i++) {
      e.fail('still down')
      now += 100
    }
    // Past a minute: one reminder with the count so far.
    expect(lines).toEqual(['start down 0', 'still still down 601 60000'])
    e.fail('a sign, not a failure', false)
    e.ok()
    e.ok()
    expect(lines.slice(2)).toEqual([`end 700 ${now}`])
    expect(e.episodes).toBe(1)
    e.fail('again')
    e.fail('again')
    e.ok()
    expect(lines.slice(3)).toEqual(['start again', `end 2 0`])
    expect(e.episodes).toBe(2)
  })

  it('a sign of trouble (a reconnection) opens an episode without counting as a failure', () => {
    const lines: string[] = []
    const e = episode((line) => lines.push(line), texts, { now: () => 0 })
    e.fail('the connection closed', false)
    e.fail('ECONNREFUSED', false)
    e.fail('Stream is not writeable')
    e.ok()
    expect(lines).toEqual(['start the connection closed', 'end 1 0'])
  })

  it("a reason is the error's first line, short, with the store's password and any URL's credentials taken out", () => {
    expect(reasonOf(new Error('WRONGPASS invalid username-password pair or user is disabled.'))).toBe('WRONGPASS invalid username-password pair or user is disabled.')
    expect(reasonOf(new Error('cannot use hunter2-s3cret here\nsecond line'), ['hunter2-s3cret'])).toBe('cannot use REDACTED here')
    expect(reasonOf(new Error('connect to redis://admin:pa55@10.0.0.1:6379/0 failed'))).toBe('connect to redis://admin:REDACTED@10.0.0.1:6379/0 failed')
    expect(reasonOf(new Error(`ERR user_script:1: ${'x'.repeat(500)}`))).toHaveLength(200)
    expect(reasonOf('')).toBe('no reason given')
  })

  it('what a failed append lost, in words', () => {
    expect(lostText({ journal: 1, traces: 3 })).toBe('1 journal entry, 3 traces')
    expect(lostText({ activity: 2, journal: 0 })).toBe('2 activity entries')
    expect(lostText({})).toBe('nothing')
  })
})

describe("the appends' line says what a failure means, as the requests' line does (store-errors.ts)", () => {
  it('a flush the store answered MOVED: the topology said with what to do, not the raw reply', () => {
    const lines: string[] = []
    const fakeRedis = { on: () => fakeRedis } as unknown as Parameters<typeof createOperatorWatch>[0]['redis']
    const fakeBatch = { define: () => {}, lane: () => () => {}, flush: async () => {} } as unknown as Parameters<typeof createOperatorWatch>[0]['batch']
    const watch = createOperatorWatch({ redis: fakeRedis, batch: fakeBatch, log: (line) => lines.push(line), prefix: 'st:{tw:t}:', twin: 't', replica: 'r1', store: 'redis://127.0.0.1:7000/0', secrets: ['s3cret'], position: () => ({ applied: 0, seen: 0 }) })
    const moved = Object.assign(new Error('MOVED 8325 127.0.0.1:7001'), { name: 'ReplyError' })
    watch.appendFailed(moved, { journal: 3 }, storeFailure(moved, { cluster: false, store: 'redis://127.0.0.1:7000/0', slot: 8325, secrets: ['s3cret'] }))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/do not reach the shared store \(redis:\/\/127\.0\.0\.1:7000\/0 answers as a Redis Cluster node \(MOVED 8325 127\.0\.0\.1:7001: the twin's slot is served by 127\.0\.0\.1:7001\); this replica connected to it as one server\. To do: point redis:\/\/127\.0\.0\.1:7000\/0 back/)
    expect(lines[0]).toContain('lost: 3 journal entries')
    // A plain failure keeps the client's own words.
    watch.appendFlushed()
    watch.appendFailed(new Error('Connection is closed.'), { traces: 1 }, storeFailure(new Error('Connection is closed.'), { cluster: false, store: 'redis://127.0.0.1:7000/0', slot: 8325, secrets: [] }))
    expect(lines.at(-1)).toMatch(/do not reach the shared store \(not connected: the connection closed\); lost: 1 trace/)
  })
})
