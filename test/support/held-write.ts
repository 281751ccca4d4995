/**
 * `shoptwin proxy --inject` holding a keyed write past the client's timeout (the `slow` write fault):
 * the client gives up on it and retries with the same key, which reaches the upstream while the first
 * attempt may still be in flight there. Shared by the in-memory and the shared-store proofs.
 */
import { PROFILES, type Profile } from '../../conformance/certify-client/profile.ts'
import { startProxy, type RunningProxy } from '../../proxy/index.ts'

export async function heldWriteThenRetry(upstream: string, shopId: string, key: string, title: string): Promise<{ proxy: RunningProxy; retry: Response; headers: Record<string, string>; body: string }> {
  const profile: Profile = { ...PROFILES.standard, name: 'held', burst429: { ...PROFILES.standard.burst429, times: 0 }, writeFaults: ['slow'], inFlight409: 0, stale412: 0, slowMs: 60_000 }
  let holding!: () => void
  const isHeld = new Promise<void>((resolve) => (holding = resolve))
  const proxy = await startProxy({ upstream, inject: profile, seed: 7, onInject: (x) => x.injected?.startsWith('slow') && holding() })
  const headers = { 'x-api-key': 'demo-key', 'x-shop-id': shopId, 'content-type': 'application/json', 'idempotency-key': key }
  const body = JSON.stringify({ title, message_type: 'dm', outreach_audience: 'new_affiliates', dm_messages: [{ type: 'text', content: 'hello' }] })
  const first = new AbortController()
  const held = fetch(`${proxy.url}/automations/create`, { method: 'POST', headers, body, signal: first.signal }).catch((error: Error) => error)
  // The client gives up on the held write (its timeout) and retries with the same key.
  await isHeld
  first.abort()
  await held
  const retry = await fetch(`${proxy.url}/automations/create`, { method: 'POST', headers, body })
  return { proxy, retry, headers, body }
}
