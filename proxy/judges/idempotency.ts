/**
 * Idempotency rules judged on traffic (spec: Idempotency; States and transitions: Idempotency
 * processing, completed): what the proxy saw answered for a shop and key is what a replay and a
 * lookup must give; a request meeting its key in flight at the upstream gets 409 or the replay.
 */
import { createHash } from 'node:crypto'
import { KEY_PATTERN } from '../../mock/pipeline/idempotency.ts'
import { canonicalJson } from '../../conformance/support.ts'
import { describeObserved, type Observed, type PassiveJudge } from './types.ts'

const INVALID_KEY = 'Invalid idempotency key format'
const UNKNOWN_KEY = 'No stored response for that key'
const DAY_MS = 24 * 60 * 60 * 1000

/** Keys remembered (the oldest forgotten first; 10,000 as the twin keeps on a shared store): the proxy's memory stays bounded (a replay of a forgotten key is not judged). */
export const KEYS_KEPT = 10_000

const digest = (text: string) => createHash('sha1').update(text).digest('base64')

/** A completed write as the rules need it: its answer's digest (replays compare bytes), its body's canonical digest (lookups), an excerpt (findings). */
interface Completed {
  seq: number
  atMs: number
  permission: string
  status: number
  digest: string
  bodyDigest: string
  excerpt: string
}

/** Whether the answer is one the service stores for the key (spec: 5xx not cached; refusals before the key is read are not the write's). */
const stored = (o: Observed) => o.status < 500 && ![401, 403, 409, 429].includes(o.status) && !(o.status === 400 && o.error === INVALID_KEY)

const keyOf = (o: Observed): string | undefined => {
  const key = o.x.requestHeaders['idempotency-key']
  return o.op.idempotent && key !== undefined && KEY_PATTERN.test(key) ? key : undefined
}

const sameAnswer = (a: Completed, o: Observed) => a.status === o.status && a.digest === digest(o.text)

/** Sets `key` in a map holding at most KEYS_KEPT entries. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): V {
  if (map.size >= KEYS_KEPT && !map.has(key)) map.delete(map.keys().next().value!)
  map.set(key, value)
  return value
}

export function idempotencyJudges(): PassiveJudge[] {
  /** The first stored answer per shop and key, as the proxy saw it. */
  const completed = new Map<string, Completed>()
  /** Shops each key was used on. */
  const shopsOfKey = new Map<string, Set<string>>()
  const shopOf = (o: Observed) => o.x.requestHeaders['x-shop-id'] ?? ''
  /** Requests that met their key in flight, by the seq of the one in flight: judged once both answered. */
  const waiting = new Map<number, Observed[]>()
  /** The answers of keyed writes (status and body only), the most recent ones: a request in flight is answered within the spec's 60 s. */
  const answers = new Map<number, { seq: number; status: number; text: string }>()

  const record: PassiveJudge = {
    rule: 'idempotency.replay-identical',
    judges: 'a write repeating a shop\'s Idempotency-Key after the first answer returns that answer\'s status and body byte for byte',
    observe(o, t) {
      const key = keyOf(o)
      if (key === undefined) return
      const id = `${shopOf(o)} ${key}`
      ;(shopsOfKey.get(key) ?? remember(shopsOfKey, key, new Set())).add(shopOf(o))
      const first = completed.get(id)
      if (first && first.seq !== o.x.seq && o.x.atMs - first.atMs < DAY_MS && first.atMs + 0 <= o.x.atMs && o.x.sameKeyInFlight === undefined && first.permission === o.op.permission && o.status !== 429) {
        t.exercised(o)
        if (!sameAnswer(first, o)) t.fail(o, { message: `a replay of the key of #${first.seq} returns the original answer byte for byte`, expected: `${first.status} ${first.excerpt}`, received: describeObserved(o) })
      } else if (!first && stored(o)) {
        remember(completed, id, { seq: o.x.seq, atMs: o.x.atMs, permission: o.op.permission, status: o.status, digest: digest(o.text), bodyDigest: digest(canonicalJson(o.json) ?? ''), excerpt: o.text.slice(0, 200) })
      }
    },
  }

  const concurrent: PassiveJudge = {
    rule: 'idempotency.concurrent-409',
    judges: 'a write sent while another with the same shop and key is in flight at the upstream gets 409, or the first one\'s answer replayed (never a second effect)',
    observe(o, t) {
      if (keyOf(o) === undefined) return
      answers.set(o.x.seq, { seq: o.x.seq, status: o.status, text: o.text })
      if (answers.size > 1000) answers.delete(answers.keys().next().value!)
      const judge = (later: Observed, first: { seq: number; status: number; text: string }) => {
        t.exercised(later)
        if (later.status === 409 || later.status === 429) return
        if (later.status !== first.status || later.text !== first.text) {
          t.fail(later, { message: `#${later.x.seq} arrived while #${first.seq} with the same key was in flight and was neither refused with 409 nor given its answer`, expected: `409, or ${first.status} ${first.text.slice(0, 120)}`, received: describeObserved(later) })
        }
      }
      const inFlight = o.x.sameKeyInFlight
      if (inFlight !== undefined) {
        const first = answers.get(inFlight)
        if (first) judge(o, first)
        else (waiting.get(inFlight) ?? waiting.set(inFlight, []).get(inFlight)!).push(o)
      }
      for (const later of waiting.get(o.x.seq) ?? []) judge(later, answers.get(o.x.seq)!)
      waiting.delete(o.x.seq)
    },
  }

  const headerFormat: PassiveJudge = {
    rule: 'idempotency.header-format',
    judges: `a write whose Idempotency-Key header does not match ^[A-Za-z0-9-]{1,128}$ gets 400 "${INVALID_KEY}"`,
    observe(o, t) {
      const key = o.x.requestHeaders['idempotency-key']
      if (!o.op.idempotent || key === undefined || KEY_PATTERN.test(key) || [401, 403, 429].includes(o.status)) return
      t.exercised(o)
      if (o.status !== 400 || o.error !== INVALID_KEY) t.fail(o, { message: 'a malformed Idempotency-Key is refused', expected: `400 {"error": "${INVALID_KEY}"}`, received: describeObserved(o) })
    },
  }

  const lookupKey = (o: Observed): string | undefined => {
    if (o.op.path !== '/idempotency/{key}') return undefined
    try {
      return decodeURIComponent(o.x.path.slice('/idempotency/'.length))
    } catch {
      return o.x.path.slice('/idempotency/'.length)
    }
  }
  const answeredLookup = (o: Observed) => ![401, 403, 429].includes(o.status)

  const keyFormat: PassiveJudge = {
    rule: 'idempotency.key-format',
    judges: `a lookup of a key not matching ^[A-Za-z0-9-]{1,128}$ gets 400 "${INVALID_KEY}"`,
    observe(o, t) {
      const key = lookupKey(o)
      if (key === undefined || KEY_PATTERN.test(key) || !answeredLookup(o)) return
      t.exercised(o)
      if (o.status !== 400 || o.error !== INVALID_KEY) t.fail(o, { message: 'a malformed key is refused on lookup', expected: `400 {"error": "${INVALID_KEY}"}`, received: describeObserved(o) })
    },
  }

  const lookupStates: PassiveJudge = {
    rule: 'idempotency.lookup-states',
    judges: 'a lookup of a key whose write the proxy saw answered (same shop, within 24 hours) shows completed with that write\'s status and body',
    observe(o, t) {
      const key = lookupKey(o)
      const first = key === undefined ? undefined : completed.get(`${shopOf(o)} ${key}`)
      if (!first || !answeredLookup(o) || o.x.atMs < first.atMs || o.x.atMs - first.atMs > DAY_MS) return
      t.exercised(o)
      const record = o.json?.idempotency
      const ok = o.status === 200 && record?.status === 'completed' && record.response_status === first.status && digest(canonicalJson(record.response_body) ?? '') === first.bodyDigest
      if (!ok) t.fail(o, { message: `the lookup shows the completed write #${first.seq}`, expected: `200 {"idempotency": {"status": "completed", "response_status": ${first.status}, "response_body": ${first.excerpt.slice(0, 120)}}}`, received: describeObserved(o) })
    },
  }

  const unknownKey: PassiveJudge = {
    rule: 'idempotency.unknown-key',
    judges: `a lookup answered 404 carries "${UNKNOWN_KEY}"`,
    observe(o, t) {
      const key = lookupKey(o)
      if (key === undefined || o.status !== 404 || !KEY_PATTERN.test(key)) return
      t.exercised(o)
      if (o.error !== UNKNOWN_KEY) t.fail(o, { message: 'a key with nothing stored gets the spec\'s message', expected: `404 {"error": "${UNKNOWN_KEY}"}`, received: describeObserved(o) })
    },
  }

  const shopScoped: PassiveJudge = {
    rule: 'idempotency.shop-scoped',
    judges: 'a lookup on one shop of a key the proxy saw used only on another shop gets 404',
    observe(o, t) {
      const key = lookupKey(o)
      const shops = key === undefined ? undefined : shopsOfKey.get(key)
      if (!shops || shops.has(shopOf(o)) || !answeredLookup(o) || o.status === 400) return
      t.exercised(o)
      if (o.status !== 404) t.fail(o, { message: 'idempotency records are scoped to the shop', expected: '404', received: describeObserved(o) })
    },
  }

  return [record, concurrent, headerFormat, keyFormat, lookupStates, unknownKey, shopScoped]
}
