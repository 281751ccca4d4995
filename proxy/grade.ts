/**
 * Grades the traffic as it passes: each exchange, once answered, goes to the passive judges (the
 * server's side, conformance rules) and is recorded as certify-client records a request (the
 * client's side, graded at the end by certify-client's own rules). Only the evidence is kept: a few
 * exchanges per rule, redacted, with a curl.
 */
import { loadContract, type Contract } from '../openapi/index.ts'
import { catalogue } from '../conformance/catalogue.ts'
import { buildReport, type RunReport } from '../conformance/report.ts'
import { areaOf, type Failure, type RuleOutcome, type RunOptions } from '../conformance/types.ts'
import { enrich, type ClientReport } from '../conformance/certify-client/grade.ts'
import { requestBodies } from '../conformance/certify-client/rules/contract/request-bodies.ts'
import { PROFILES, type Profile } from '../conformance/certify-client/profile.ts'
import { keyIdOf, type Recording } from '../conformance/certify-client/session.ts'
import type { RecordedRequest } from '../mock/pipeline/certification.ts'
import type { GradedRequest } from '../conformance/certify-client/types.ts'
import { schemaResolver } from '../mock/pipeline/query.ts'
import { asEvidence, LastAnswers, Redactor, type ProxyExchange } from './exchange.ts'
import { createClientGrader } from './client-grading.ts'
import { NOT_PASSIVE, passiveJudges } from './judges/index.ts'
import { KEYS_KEPT } from './judges/idempotency.ts'
import type { Finding, JudgeContext, Observed, PassiveJudge } from './judges/types.ts'
import { codingsOf, type Unreadable } from './codings.ts'

const MAX_BODY = 64 * 1024
/** Exchanges listed per situation and upstream failures listed (the counts go on). */
const LISTED = 1000
/** Findings and evidence kept per rule (the count says how many there were). */
const KEEP = 20

/** What the live line says of one exchange. */
export interface Graded {
  x: ProxyExchange
  /** `rule: message` of the findings on it: the server's (failures and warnings) and the request's against the contract (`client contract.request-bodies`). */
  findings: Array<{ rule: string; message: string; failure: boolean }>
}

interface RuleState {
  judge: PassiveJudge
  exercised: number
  operations: Set<string>
  evidence: ProxyExchange[]
  failures: Failure[]
  failureCount: number
  warnings: Failure[]
  warningCount: number
}

export interface ProxyReport {
  tool: 'shoptwin proxy'
  upstream: string
  proxyUrl: string
  startedAt: string
  finishedAt: string
  exchanges: number
  /** What --inject produced, by situation, with the exchanges (seq) it was produced on; {} without --inject. */
  situations: Record<string, number[]>
  inject: string | null
  /** The exchanges the upstream failed (no answer, a reset, a 5xx), by seq. */
  upstreamFailures: Array<{ seq: number; what: string }>
  /** How many exchanges the upstream failed (the list above holds the first LISTED). */
  upstreamFailureCount: number
  server: RunReport
  client: ClientReport
  /** A redacted curl for each request a client finding names (by seq): the key read from $API_KEY... */
  clientCurls: Record<number, string>
  /** Which findings fail the run: MUST rules, SHOULD rules too, or none. */
  failOn: 'must' | 'should' | 'never'
  /** The integration the CLI ran through the proxy (`-- <command>`), and how it ended; a failed one makes the exit code 1. */
  command?: { line: string; outcome: string; failed: boolean }
  exitCode: 0 | 1
}

/** The profile behind a run without --inject: nothing produced, the recording graded as it is. */
const PASSIVE: Profile = { ...PROFILES.standard, name: 'none (no --inject)', burst429: { ...PROFILES.standard.burst429, times: 0 }, writeFaults: [], inFlight409: 0, stale412: 0 }

export function createGrader({ upstream, contract = loadContract(), redactor = new Redactor(), now = Date.now, inject, seed = 42 }: { upstream: string; contract?: Contract; redactor?: Redactor; now?: () => number; inject?: Profile; seed?: number }) {
  const judges = passiveJudges()
  const rules = new Map<string, RuleState>(judges.map((judge) => [judge.rule, { judge, exercised: 0, operations: new Set(), evidence: [], failures: [], failureCount: 0, warnings: [], warningCount: 0 }]))
  let recordingMeta: Omit<Recording, 'requests'> = { profile: inject ?? PASSIVE, seed, startedAt: new Date(now()).toISOString(), keys: {} }
  const client = createClientGrader(contract, () => recordingMeta)
  const situations: Record<string, number[]> = {}
  const upstreamFailures: ProxyReport['upstreamFailures'] = []
  let upstreamFailureCount = 0
  /** Notes an exchange a situation was produced (or met) on: the first LISTED of each, so memory stays flat. */
  const situation = (what: string, seq: number) => {
    const list = (situations[what] ??= [])
    if (list.length < LISTED) list.push(seq)
  }
  const resolve = schemaResolver(contract.doc)
  const keyIds = new Map<string, string>()
  /** Shop and key of writes the upstream answered, to tell a replay (spec: Idempotency completed). */
  const answeredKeys = new Set<string>()
  let count = 0
  const lastAnswers = new LastAnswers<Answer & { raw: Buffer; codings: string }>()
  const lastRequests = new Map<string, { input: string; request: GradedRequest; valid: boolean }>()

  const keyId = (key: string) => {
    let id = keyIds.get(key)
    if (id === undefined) keyIds.set(key, (id = keyIdOf(key)))
    return id
  }

  const finding = (state: RuleState, o: Observed, f: Finding): Failure => ({ rule: state.judge.rule, operation: o.op.permission, ...f, exchange: asEvidence(o.x, redactor, upstream, state.judge.rule) })

  /**
   * The upstream's answer as text (its codings undone: proxy/codings.ts) and parsed JSON. An answer
   * identical to the last one of its operation and status (a poll, a cached read), bytes and codings,
   * is decoded and parsed once: compared on its bytes as they came.
   */
  function answerOf(x: ProxyExchange): Answer {
    const last = lastAnswers.get(x.operationId, x.upstream?.status)
    const raw = x.upstream?.raw
    const codings = x.upstream ? codingsOf(x.upstream.headers).join(', ') : ''
    if (last && raw && last.codings === codings && last.raw.equals(raw)) return last
    const text = x.upstream?.body ?? ''
    const unreadable = x.upstream?.unreadable
    let json: any
    try {
      json = text && !unreadable ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    const answer = { raw: raw ?? Buffer.alloc(0), codings, text, json, unreadable }
    if (raw) lastAnswers.set(x.operationId, x.upstream?.status, answer)
    return answer
  }

  function recorded(x: ProxyExchange, answer: () => Answer): RecordedRequest {
    const key = x.requestHeaders['x-api-key']
    const idempotencyKey = x.requestHeaders['idempotency-key'] ?? null
    const upstreamStatus = x.upstream?.status
    const pair = `${x.requestHeaders['x-shop-id'] ?? ''} ${idempotencyKey}`
    const replayed = idempotencyKey !== null && (x.upstream?.headers['idempotent-replayed'] === 'true' || (answeredKeys.has(pair) && x.sameKeyInFlight === undefined))
    if (idempotencyKey !== null && upstreamStatus !== undefined && upstreamStatus < 500 && upstreamStatus !== 409 && upstreamStatus !== 429 && !answeredKeys.has(pair)) {
      // The oldest forgotten first (KEYS_KEPT): a replay of a forgotten key reads as applied unless the upstream says Idempotent-Replayed.
      if (answeredKeys.size >= KEYS_KEPT) answeredKeys.delete(answeredKeys.values().next().value!)
      answeredKeys.add(pair)
    }
    let note: string | undefined
    // The answer the client read (not the upstream's, when --inject answered), parsed only when the
    // note needs it (an error, a halo build, a listing's depth), and once for the judges too.
    const clientJson = () => (x.injected || !x.upstream ? undefined : answer().json)
    if (x.status >= 400) note = errorOf(clientJson())
    else if (x.status >= 200 && x.status < 300 && x.path === '/halo-effect') note = haloNoteOf(clientJson())
    // A paged listing's depth, where the upstream's answer counts it (total_count): paging.depth-cap's situation.
    let listingRows: number | undefined
    if (x.status >= 200 && x.status < 300 && x.operationId && contract.byId.get(x.operationId)?.paging) {
      const json = clientJson()
      const total = json && typeof json === 'object' && !Array.isArray(json) ? json : undefined
      const count = total?.data?.total_count ?? total?.total_count
      if (typeof count === 'number') listingRows = count
    }
    return {
      seq: x.seq,
      atMs: x.atMs,
      method: x.method,
      path: x.path,
      query: x.query,
      operationId: x.operationId ?? '',
      shopId: x.requestHeaders['x-shop-id'] ?? null,
      keyId: key === undefined ? null : keyId(key),
      contentType: x.requestHeaders['content-type'] ?? null,
      idempotencyKey,
      bodyText: requestText(x),
      status: x.status,
      retryAfter: x.retryAfter,
      // A write that reached the upstream and was answered below 400, not as a replay.
      applied: upstreamStatus !== undefined && upstreamStatus < 400 && !replayed,
      replayed,
      ...(x.injected ? { injected: x.injected } : {}),
      ...(note ? { note } : {}),
      ...(listingRows !== undefined ? { listingRows } : {}),
    }
  }

  /** The exchange being judged and what its live line shows: a finding on it goes there too. */
  let judging: Graded | undefined
  /** Each judge's context, made once (not per exchange): it reports into its rule's state and, for the exchange being judged, its live line. */
  const contexts = new Map<PassiveJudge, JudgeContext>(
    judges.map((judge) => {
      const state = rules.get(judge.rule)!
      const t: JudgeContext = {
        contract,
        exercised(seen) {
          state.exercised++
          state.operations.add(seen.op.operationId)
          if (state.evidence.length < 5 && !state.evidence.includes(seen.x)) state.evidence.push(seen.x)
        },
        fail(seen, f) {
          state.failureCount++
          if (seen.x === judging?.x) judging.findings.push({ rule: judge.rule, message: f.message, failure: true })
          if (state.failures.length < KEEP) state.failures.push(finding(state, seen, f))
        },
        warn(seen, f) {
          state.warningCount++
          if (seen.x === judging?.x) judging.findings.push({ rule: judge.rule, message: f.message, failure: false })
          if (state.warnings.length < KEEP) state.warnings.push(finding(state, seen, f))
        },
      }
      return [judge, t]
    }),
  )

  /** Judges one exchange; returns what its live line shows. */
  function observe(x: ProxyExchange): Graded {
    count++
    redactor.learn(x.requestHeaders)
    const graded: Graded = { x, findings: [] }
    if (x.injected) situation(x.injected, x.seq)
    const failure = x.upstreamError ?? (x.upstream && x.upstream.status >= 500 ? `answered ${x.upstream.status}` : undefined)
    if (failure !== undefined && ++upstreamFailureCount <= LISTED) upstreamFailures.push({ seq: x.seq, what: failure })
    if (x.sameKeyInFlight !== undefined && x.upstream) {
      // issue 27: a held write's retry meets the upstream's own 409 in flight, or (an upstream that finished the first before reading the retry) its replay.
      const status = x.upstream.status
      situation(status === 409 ? 'retry reached the upstream while the first attempt with its key was in flight there: the upstream answered its own 409 in flight' : `retry reached the upstream while the first attempt with its key was in flight there, but the upstream answered ${status}${x.upstream.headers['idempotent-replayed'] === 'true' ? ' (a replay: it had finished the first before it read the retry)' : ''}: no 409 in flight produced`, x.seq)
    }
    if (!x.operationId) return graded
    let answer: Answer | undefined
    const parsed = () => (answer ??= answerOf(x))
    const entry = recorded(x, parsed)
    client.add(entry)
    if (x.upstream === undefined && x.upstreamError === undefined) return graded
    // A request identical to the last one of its operation (same body or query) is read as that one was.
    const input = `${entry.bodyText}\n${entry.query}`
    const lastRequest = lastRequests.get(entry.operationId)
    let request: GradedRequest | undefined
    if (lastRequest?.input === input) request = { ...lastRequest.request, ...entry }
    else {
      request = enrich([entry], contract, resolve)[0]
      if (!request) return graded
    }
    // The request against the contract, for the live line (certify-client's rule; the report grades all requests at the end).
    if (lastRequest?.input !== input || !lastRequest.valid) {
      const requestGrade = requestBodies.grade({ requests: [request], contract, recording: undefined as never })
      const failures = requestGrade.exercised ? requestGrade.failures : []
      for (const f of failures) graded.findings.push({ rule: `client ${requestBodies.id}`, message: f.received, failure: true })
      lastRequests.set(entry.operationId, { input, request, valid: failures.length === 0 })
    }
    const { text, json, unreadable } = parsed()
    const o: Observed = { x, op: request.op, request, status: x.upstream?.status ?? 0, headers: x.upstream?.headers ?? {}, text, json, error: typeof json?.error === 'string' ? json.error : undefined, unreadable }
    judging = graded
    for (const [judge, t] of contexts) {
      // A body the proxy could not read is not judged by the rules that read bodies (responses-valid says why).
      if (unreadable && !judge.unreadableBodies) continue
      try {
        judge.observe(o, t)
      } catch (error) {
        // A judge that cannot read an answer says so; the proxy goes on.
        t.warn(o, { message: `the proxy could not judge this exchange: ${(error as Error).message}`, expected: 'an answer the judge can read', received: o.text.slice(0, 200) })
      }
    }
    judging = undefined
    return graded
  }

  function serverOutcomes(): RuleOutcome[] {
    return catalogue.map((rule) => {
      const base = { id: rule.id, title: rule.title, spec: rule.spec, level: rule.level, writes: rule.writes, area: areaOf(rule.id), durationMs: 0 }
      const state = rules.get(rule.id)
      if (!state) return { ...base, status: 'skip', reason: `not judged passively: ${NOT_PASSIVE[rule.id] ?? 'no passive judge'}`, failures: [], warnings: [], operations: [], exchanges: [] }
      const more = (list: Failure[], total: number): Failure[] => (total > list.length ? [...list, { rule: rule.id, message: `… and ${total - list.length} more like these`, expected: '', received: '' }] : list)
      const exchanges = state.evidence.map((x) => asEvidence(x, redactor, upstream, rule.id))
      if (!state.exercised) return { ...base, status: 'skip', reason: `not exercised: no exchange of the traffic showed it (judged passively: ${state.judge.judges})`, failures: [], warnings: more(state.warnings, state.warningCount), operations: [], exchanges }
      return { ...base, status: state.failureCount ? 'fail' : 'pass', reason: `judged passively on ${state.exercised} exchange${state.exercised > 1 ? 's' : ''}: ${state.judge.judges}`, failures: more(state.failures, state.failureCount), warnings: more(state.warnings, state.warningCount), operations: [...state.operations], exchanges }
    })
  }

  /** The report of the traffic so far. */
  function report({ proxyUrl, startedAt, inject, seed = 42, failOn = 'must', commandLine }: { proxyUrl: string; startedAt: Date; inject?: Profile; seed?: number; failOn?: ProxyReport['failOn']; commandLine?: string }): ProxyReport {
    const outcomes = serverOutcomes()
    const options: RunOptions = { baseUrl: upstream, apiKey: '', shopId: '', allowWrites: false, rules: [], rps: 0, haloBoundSeconds: 0, ruleTimeoutSeconds: 0 }
    const server = buildReport(contract, options, outcomes, [], startedAt)
    const finishedAt = new Date(now())
    server.finishedAt = finishedAt.toISOString()
    server.durationMs = finishedAt.getTime() - startedAt.getTime()
    const judged = outcomes.filter((o) => rules.has(o.id))
    const exercised = judged.filter((o) => o.status !== 'skip')
    const mustFailed = outcomes.filter((o) => o.level === 'MUST' && o.status === 'fail').length
    server.tool = 'shoptwin proxy'
    server.door = 'api'
    server.commandLine = commandLine
    server.verdictText = `${mustFailed ? `VIOLATIONS: ${mustFailed} MUST rule${mustFailed > 1 ? 's' : ''} failed` : 'NO VIOLATION: no MUST rule failed'} in ${count} exchange${count === 1 ? '' : 's'}; ${judged.length} of ${outcomes.length} rules judged passively, ${exercised.length} of them exercised; the other ${outcomes.length - judged.length} need requests of their own (shoptwin conformance)`
    server.facts = [
      ['Upstream', upstream],
      ['Proxy', proxyUrl],
      ['Exchanges', String(count)],
      ['Adversity', inject ? `--inject ${inject.name}, seed ${seed}` : 'none: the proxy changed nothing'],
      ['Judged passively', `${judged.length} of ${outcomes.length} rules (${exercised.length} exercised by the traffic); a rule traffic never exercised is "not exercised", never passed`],
    ]
    recordingMeta = { profile: inject ?? PASSIVE, seed, startedAt: startedAt.toISOString(), finishedAt: finishedAt.toISOString(), keys: {} }
    const clientReport = client.report(recordingMeta)
    clientReport.tool = 'shoptwin proxy'
    // The recorded requests as the report shows them: a key the client echoed in a body or a query is redacted there too (copies: the grading keeps its own).
    clientReport.requests = clientReport.requests.map((r) => ({ ...r, path: redactor.text(r.path), query: redactor.text(r.query), bodyText: redactor.text(r.bodyText) }))
    clientReport.commandLine = commandLine
    const shouldFailed = outcomes.some((o) => o.level === 'SHOULD' && o.status === 'fail') || clientReport.summary.shouldFailed > 0
    const failed = failOn === 'never' ? false : server.verdict === 'not certified' || clientReport.summary.mustFailed > 0 || (failOn === 'should' && shouldFailed)
    const keyOfId = new Map([...keyIds].map(([key, id]) => [id, key]))
    const bySeq = new Map(clientReport.requests.map((r) => [r.seq, r]))
    const clientCurls: Record<number, string> = {}
    for (const seq of clientReport.outcomes.flatMap((o) => o.failures.flatMap((f) => f.requests)).slice(0, 200)) {
      const r = bySeq.get(seq)
      if (!r) continue
      const headers: Record<string, string> = {}
      if (r.keyId) headers['x-api-key'] = keyOfId.get(r.keyId) ?? ''
      if (r.shopId !== null) headers['x-shop-id'] = r.shopId
      if (r.contentType !== null) headers['content-type'] = r.contentType
      if (r.idempotencyKey !== null) headers['idempotency-key'] = r.idempotencyKey
      clientCurls[seq] = redactor.curl({ seq, atMs: r.atMs, durationMs: 0, method: r.method, path: r.path, query: r.query, requestHeaders: headers, requestBody: r.bodyText, requestTruncated: false, status: r.status, retryAfter: r.retryAfter }, proxyUrl)
    }
    return {
      tool: 'shoptwin proxy',
      upstream,
      proxyUrl,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      exchanges: count,
      situations,
      inject: inject ? inject.name : null,
      upstreamFailures,
      upstreamFailureCount,
      server,
      client: clientReport,
      clientCurls,
      failOn,
      exitCode: failed ? 1 : 0,
    }
  }

  return { observe, report, redactor, work: client.work }
}

export type Grader = ReturnType<typeof createGrader>

/** The upstream's answer as the judges read it. */
interface Answer {
  text: string
  json: any
  unreadable: Unreadable | undefined
}

/**
 * The request body certify-client's rules read: its text, its Content-Encoding undone. One that does not
 * decode reads as the sentence saying so (contract.request-bodies: not a JSON object, received that
 * sentence, not the garbage); one the proxy has no decoder for, or over the bound, as no body (not judged).
 */
function requestText(x: ProxyExchange): string {
  const text = x.requestBody
  const unreadable = x.requestUnreadable
  if (unreadable) return unreadable.kind === 'undecodable' ? text : ''
  return text.length > MAX_BODY ? text.slice(0, 1024) : text
}

/** The `error` of a JSON error body (what certify-client notes of an error answer). */
function errorOf(json: any): string | undefined {
  return typeof json?.error === 'string' ? json.error : undefined
}

/** certify-client's note on a halo answer (session.ts haloNote), from the parsed body: undefined when it is not JSON. */
function haloNoteOf(json: any): string | undefined {
  if (json === undefined || json === null) return undefined
  const platforms = (json as { data?: { platforms?: Record<string, { status?: string }> } }).data?.platforms ?? {}
  return Object.values(platforms).some((p) => p?.status === 'refreshing') ? 'refreshing' : 'ok'
}
