/**
 * `shoptwin proxy --inject`: certify-client's schedule applied at the proxy in front of a server
 * (here the twin with nothing injected of its own). The reference partner client passes every client
 * rule, and each client breaking one rule fails exactly the rules it fails under certify-client
 * (test/certify-client.test.ts). The client's waits advance the upstream's clock, which the proxy reads.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { gradeRecording, type ClientReport } from '../conformance/certify-client/grade.ts'
import { PROFILES, type Profile } from '../conformance/certify-client/profile.ts'
import { clientRules } from '../conformance/certify-client/rules/index.ts'
import { startCertification } from '../conformance/certify-client/session.ts'
import { createServer, type MockServer } from '../mock/server.ts'
import { startProxy, type RunningProxy } from '../proxy/index.ts'
import { runIntegration } from './certify-client/partner-client.ts'
import { heldWriteThenRetry } from './support/held-write.ts'

let mock: MockServer | undefined
let proxy: RunningProxy | undefined
afterEach(async () => {
  await proxy?.stop()
  await mock?.close()
  proxy = undefined
  mock = undefined
})

const twin = () => createServer({ stateOptions: { seed: 42, scale: 'small', now: '2026-11-20T12:00:00Z', today: '2026-11-20' } })

/** The upstream prepared as certify-client prepares the twin (boards opened, a deep sample list, a slow halo build), producing nothing itself. */
const preparedOnly = (profile: Profile): Profile => ({ ...profile, name: 'prepared', writeFaults: [], inFlight409: 0, stale412: 0, burst429: { ...profile.burst429, times: 0 } })

async function underCertifyClient(profile: Profile, breaks: string | undefined, seed: number): Promise<ClientReport> {
  mock = twin()
  const url = await mock.listen(0, '127.0.0.1')
  const { state } = mock
  const session = await startCertification(state, profile, seed)
  await runIntegration({ baseUrl: url, apiKey: 'demo-key', shopId: state.world.shops[0]!.shop_id, sleep: async (ms) => state.clock.advance(ms), now: () => state.clock.nowMs(), breaks })
  const report = gradeRecording(session.finish())
  await mock.close()
  mock = undefined
  return report
}

async function behindProxy(profile: Profile, breaks: string | undefined, seed: number) {
  mock = twin()
  const upstream = await mock.listen(0, '127.0.0.1')
  const { state } = mock
  const session = await startCertification(state, preparedOnly(profile), seed)
  proxy = await startProxy({ upstream, inject: profile, seed, now: () => state.clock.nowMs() })
  await runIntegration({ baseUrl: proxy.url, apiKey: 'demo-key', shopId: state.world.shops[0]!.shop_id, sleep: async (ms) => state.clock.advance(ms), now: () => state.clock.nowMs(), breaks })
  const report = await proxy.stop()
  proxy = undefined
  session.finish()
  return report
}

const failed = (report: ClientReport) => report.outcomes.filter((o) => o.status === 'fail').map((o) => o.id)

describe('proxy --inject: certify-client\'s schedule in front of a server', () => {
  it('the well-behaved partner client passes every client rule, each exercised, and the server has no violation', async () => {
    const report = await behindProxy(PROFILES.standard, undefined, 7)
    expect(report.client.outcomes.map((o) => [o.id, o.status])).toEqual(clientRules.map((r) => [r.id, 'pass']))
    expect(report.server.outcomes.filter((o) => o.status === 'fail').map((o) => o.id)).toEqual([])
    // The report says which situations were produced (standard: a 429, three write faults, a 409, a 412).
    expect(Object.keys(report.situations).sort()).toEqual(['409 in flight', '412 stale board (not forwarded)', '429 after a burst', '500 (applied)', '503', 'dropped connection (applied)'])
  })

  const rename = (s: Record<string, number[]>) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k === 'board changed before the update' ? '412 stale board (not forwarded)' : k, v]))

  it('the same seed meets the same situations on the same requests as under certify-client (standard)', { timeout: 60_000 }, async () => {
    const direct = await underCertifyClient(PROFILES.standard, undefined, 7)
    const proxied = await behindProxy(PROFILES.standard, undefined, 7)
    expect(proxied.client.situations).toEqual(rename(direct.situations))
    expect(proxied.client.outcomes.map((o) => [o.id, o.status])).toEqual(direct.outcomes.map((o) => [o.id, o.status]))
  })

  it('strict: the same situations as many times, and the same outcomes, as under certify-client', { timeout: 60_000 }, async () => {
    const direct = await underCertifyClient(PROFILES.strict, undefined, 7)
    const proxied = await behindProxy(PROFILES.strict, undefined, 7)
    // The twin really changes the board before a stale update, so the client's re-read update is a new
    // write the schedule may make stale again; the proxy only answers 412 (the board is unchanged, the
    // re-sent update identical, so it passes) and makes the next update stale instead.
    const counts = (s: Record<string, number[]>) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v.length]))
    expect(counts(proxied.client.situations)).toEqual(counts(rename(direct.situations)))
    expect(proxied.client.outcomes.map((o) => [o.id, o.status])).toEqual(direct.outcomes.map((o) => [o.id, o.status]))
  })

  for (const rule of clientRules) {
    it(`${rule.id}: the client breaking it fails the same rules behind the proxy as under certify-client`, { timeout: 60_000 }, async () => {
      const direct = await underCertifyClient(PROFILES.standard, rule.id, 7)
      const proxied = await behindProxy(PROFILES.standard, rule.id, 7)
      expect(failed(proxied.client)).toEqual(failed(direct))
      expect(failed(proxied.client)).toEqual([rule.id])
    })
  }

  it('a write held past the client\'s timeout: its retry with the same key reaches the upstream while it is in flight there', { timeout: 60_000 }, async () => {
    mock = twin()
    const upstream = await mock.listen(0, '127.0.0.1')
    const shopId = mock.state.world.shops[0]!.shop_id
    const started = await heldWriteThenRetry(upstream, shopId, 'held-write-1', 'held')
    proxy = started.proxy
    const { retry } = started
    const retried = await retry.json() as { error?: string }
    const report = await started.proxy.stop()
    proxy = undefined
    const heldSeq = report.situations['slow write (applied late)']
    expect(heldSeq).toHaveLength(1)
    // The upstream answered the retry itself: its own 409 while the held write was in flight, or the held write's replay.
    const met = Object.keys(report.situations).find((k) => k.startsWith('retry reached the upstream while'))
    expect(met, JSON.stringify(report.situations)).toBeDefined()
    // The twin finishes a write within the tick it claims the key, so it answers the replay (a slower
    // server answers its 409 in flight); either way the write acted once.
    expect([409, 201]).toContain(retry.status)
    if (retry.status === 409) expect(retried.error).toBe('A request with this Idempotency-Key is still in flight')
    else expect(retry.headers.get('idempotent-replayed')).toBe('true')
    expect(report.server.outcomes.find((o) => o.id === 'idempotency.concurrent-409')!.status).toBe('pass')
  })
})
