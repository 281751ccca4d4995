/**
 * Runs one rule against the target: builds the context a rule sees, records every exchange with
 * its schema findings, runs the rule's clean-ups whatever happened, and returns the outcome.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomBytes } from 'node:crypto'
import { loadContract, type Contract, type OperationInfo } from '../../openapi/index.ts'
import { createClient, curlFor, redactHeaders, redactText, TargetUnreachable, type Client, type OutgoingRequest } from '../client.ts'
import { checkResponse } from '../schema.ts'
import { areaOf, type Exchange, type Facts, type Failure, type Reply, type RequestOptions, type Rule, type RuleContext, type RuleOutcome, type RunOptions } from '../types.ts'

/** Longest response excerpt kept in the records. */
const EXCERPT = 2000

/** What all rules of one run share: the contract, the client, the learned facts. */
export interface RunEnvironment {
  options: RunOptions
  contract: Contract
  client: Client
  factCache: Map<string, unknown>
  /** Every exchange of the run, in order. */
  history: Exchange[]
  /** Every secret given on the command line, redacted everywhere. */
  secrets: string[]
  keyVariables: Map<string, string>
  nextSeq: () => number
  /** Where a waiting rule's progress goes (the runner hands it to the terminal). */
  onProgress?: (ruleId: string, message: string) => void
}

/** Prepares a run: loads the contract and creates the paced client. */
export function createRunEnvironment(options: RunOptions): RunEnvironment {
  const contract = loadContract()
  const client = createClient({ rps: options.rps })
  const secrets = [options.apiKey, options.enterpriseApiKey, options.limitedApiKey].filter((s): s is string => Boolean(s))
  const keyVariables = new Map<string, string>([[options.apiKey, 'API_KEY']])
  if (options.enterpriseApiKey) keyVariables.set(options.enterpriseApiKey, 'ENTERPRISE_API_KEY')
  if (options.limitedApiKey) keyVariables.set(options.limitedApiKey, 'LIMITED_API_KEY')
  let seq = 0
  return { options, contract, client, secrets, keyVariables, nextSeq: () => ++seq, factCache: new Map(), history: [] }
}

/** Finds an operation by permission (`POST /ads/campaigns`) or operationId. */
export function findOperation(contract: Contract, name: string): OperationInfo | undefined {
  return contract.byId.get(name) ?? contract.operations.find((o) => o.permission === name)
}

class Skip extends Error {}

/** A skip because the target's API (as the spec describes it) gives no way to observe what the rule checks. */
class NotCheckable extends Skip {}

/** The rule ran past its time limit: its own requests and waits stop; its clean-ups still run. */
class RuleTimedOut extends Error {}

/** Set while a rule's clean-ups run: their requests go out even after the rule timed out. */
const cleaningUp = new AsyncLocalStorage<true>()

/** A query object as the suite sends it: arrays repeated, objects as `key[field]` (`date_range[from]=…`). */
export function serializeQuery(query: Record<string, unknown>): string {
  const params = new URLSearchParams()
  const add = (key: string, value: unknown) => {
    if (value === undefined) return
    if (Array.isArray(value)) for (const v of value) add(key, v)
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v)
    else params.append(key, String(value))
  }
  for (const [key, value] of Object.entries(query)) add(key, value)
  const s = params.toString()
  return s ? `?${s}` : ''
}

/** Builds the HTTP request for an operation with the run's key and shop. */
export function buildRequest(env: RunEnvironment, op: OperationInfo, options: RequestOptions = {}): OutgoingRequest {
  let path = options.path ?? op.path
  for (const [name, value] of Object.entries(options.pathParams ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(value))
  const url = `${env.options.baseUrl.replace(/\/+$/, '')}${path}${serializeQuery(options.query ?? {})}`
  const headers: Record<string, string> = { accept: 'application/json' }
  if (op.method !== 'GET') headers['content-type'] = 'application/json'
  const apiKey = options.apiKey === undefined ? (op.auth === 'none' ? null : env.options.apiKey) : options.apiKey
  if (apiKey !== null) headers['x-api-key'] = apiKey
  const shopId = options.shopId === undefined ? (op.auth === 'key+shop' ? env.options.shopId : null) : options.shopId
  if (shopId !== null) headers['x-shop-id'] = shopId
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[name.toLowerCase()]
    else headers[name.toLowerCase()] = value
  }
  const method = options.method ?? op.method
  const body = method === 'GET' || method === 'HEAD' || (method !== op.method && options.body === undefined) ? undefined : JSON.stringify(options.body ?? {})
  if (body === undefined) delete headers['content-type']
  return { method, url, headers, body, unthrottled: options.unthrottled }
}

/** Sends a request for a rule: records the exchange (redacted) and its schema findings. */
export async function exchange(env: RunEnvironment, ruleId: string, op: OperationInfo, options: RequestOptions = {}): Promise<{ reply: Reply; all: Exchange[] }> {
  const request = buildRequest(env, op, options)
  // Another method on the operation's path is no call of the operation (RequestOptions.method).
  const foreign = request.method !== op.method
  const { final, retried } = await env.client.send(request)
  const record = (received: { status: number; headers: Headers; text: string; durationMs: number }, wasRetried: boolean): Exchange => ({
    seq: env.nextSeq(),
    rule: ruleId,
    operationId: foreign ? `${request.method} ${op.path}` : op.operationId,
    method: request.method,
    url: redactText(request.url, env.secrets),
    requestHeaders: redactHeaders(request.headers, env.secrets),
    requestBody: request.body === undefined ? undefined : redactText(request.body, env.secrets),
    status: received.status,
    responseHeaders: redactHeaders(received.headers, env.secrets),
    responseExcerpt: redactText(received.text.length > EXCERPT ? `${received.text.slice(0, EXCERPT)}…` : received.text, env.secrets),
    durationMs: received.durationMs,
    ...(wasRetried ? { retried: true } : {}),
    curl: curlFor(request, env.keyVariables, env.secrets),
    schema: foreign ? [] : checkResponse(env.contract, op, { status: received.status, contentType: received.headers.get('content-type'), text: received.text }),
  })
  const all = [...retried.map((r) => record(r, true)), record(final, false)]
  let json: unknown
  try {
    json = final.text ? JSON.parse(final.text) : undefined
  } catch {
    json = undefined
  }
  return { reply: { status: final.status, headers: final.headers, text: final.text, json, exchange: all[all.length - 1], op }, all }
}

export interface RuleLimits {
  /** Longest run of the rule (clean-ups not counted); past it the outcome is an error. Default: none. */
  timeoutMs?: number
}

/**
 * Runs one rule to its outcome. Never throws except when the target is unreachable. Past
 * `limits.timeoutMs` the rule is an error (`timed out after N s`), keeping what it recorded until
 * then; its next request or wait throws, so it stops there, and its clean-ups run.
 */
export async function runRule(rule: Rule, env: RunEnvironment, limits: RuleLimits = {}): Promise<RuleOutcome> {
  const started = performance.now()
  let timedOut: RuleTimedOut | undefined
  const stopIfTimedOut = () => {
    if (timedOut && !cleaningUp.getStore()) throw timedOut
  }
  const failures: Failure[] = []
  const warnings: Failure[] = []
  const exchanges: Exchange[] = []
  const cleanups: Array<() => Promise<unknown>> = []
  const outcome = (status: RuleOutcome['status'], reason?: string): RuleOutcome => ({
    id: rule.id,
    title: rule.title,
    spec: rule.spec,
    level: rule.level,
    writes: rule.writes,
    area: areaOf(rule.id),
    status,
    ...(reason ? { reason: redactText(reason, env.secrets) } : {}),
    failures,
    warnings,
    operations: [...new Set(exchanges.map((e) => e.operationId))],
    exchanges,
    durationMs: Math.round(performance.now() - started),
  })

  const op = (name: string): OperationInfo => {
    const found = findOperation(env.contract, name)
    if (!found) throw new Error(`the contract has no operation ${name}`)
    return found
  }
  const request: RuleContext['request'] = async (target, options = {}) => {
    stopIfTimedOut()
    const operation = typeof target === 'string' ? op(target) : target
    const { reply, all } = await exchange(env, rule.id, operation, options)
    // An answer that arrives after the time limit is not the rule's any more.
    stopIfTimedOut()
    exchanges.push(...all)
    env.history.push(...all)
    return reply
  }
  const t: RuleContext = {
    options: withoutKeys(env.options),
    op,
    operations: () => env.contract.operations,
    contract: env.contract,
    request,
    enterpriseKey() {
      if (!env.options.enterpriseApiKey) throw new Skip('no --enterprise-api-key')
      return env.options.enterpriseApiKey
    },
    limitedKey() {
      if (!env.options.limitedApiKey) throw new Skip('no --limited-api-key')
      return env.options.limitedApiKey
    },
    // After the time limit the outcome is settled: nothing the rule still reports counts.
    fail(failure) {
      if (!timedOut) failures.push(redactFailure(rule.id, failure, env.secrets))
    },
    warn(failure) {
      if (!timedOut) warnings.push(redactFailure(rule.id, failure, env.secrets))
    },
    history: () => env.history,
    check(ok, failure) {
      if (!ok && !timedOut) failures.push(redactFailure(rule.id, failure, env.secrets))
      return ok
    },
    skip(reason) {
      throw new Skip(reason)
    },
    notCheckable(reason) {
      throw new NotCheckable(`not checkable against this target: ${reason}`)
    },
    cleanup(fn) {
      cleanups.push(fn)
    },
    name(what) {
      return `conformance-${what}-${randomBytes(4).toString('hex')}`
    },
    quiet: async () => {
      stopIfTimedOut()
      await env.client.quiet()
    },
    sleep: async (ms) => {
      stopIfTimedOut()
      await new Promise((resolve) => setTimeout(resolve, ms))
      stopIfTimedOut()
    },
    progress: (message) => env.onProgress?.(rule.id, message),
    facts: createFacts(env.factCache, request),
  }

  const run = async () => {
    if (rule.writes && !env.options.allowWrites) throw new Skip('writes without --allow-writes')
    await rule.run(t)
  }
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    if (limits.timeoutMs === undefined) return
    const seconds = +(limits.timeoutMs / 1000).toFixed(3)
    timer = setTimeout(() => reject((timedOut = new RuleTimedOut(`timed out after ${seconds} s (${rule.timeoutSeconds === undefined ? '--rule-timeout' : "the rule's own limit"})`))), limits.timeoutMs)
  })
  let result: RuleOutcome
  try {
    await Promise.race([run(), deadline])
    result = outcome(failures.length ? 'fail' : 'pass')
  } catch (error) {
    if (error instanceof RuleTimedOut) result = outcome('error', error.message)
    else if (error instanceof Skip) result = { ...outcome(failures.length ? 'fail' : 'skip', error.message), ...(error instanceof NotCheckable && !failures.length ? { notCheckable: true } : {}) }
    else if (error instanceof TargetUnreachable) throw error
    else result = outcome('error', error instanceof Error ? error.message : String(error))
  } finally {
    clearTimeout(timer)
    // spec-independent: resources a rule created are removed whatever happened.
    for (const fn of cleanups.reverse()) {
      try {
        await cleaningUp.run(true, fn)
      } catch {
        // a failed clean-up is visible in the recorded exchanges
      }
    }
  }
  result.operations = [...new Set(exchanges.map((e) => e.operationId))]
  result.durationMs = Math.round(performance.now() - started)
  return result
}

/** A failure as data, with any key a target echoed in its answer redacted. */
function redactFailure(ruleId: string, failure: Omit<Failure, 'rule'>, secrets: readonly string[]): Failure {
  return {
    rule: ruleId,
    ...failure,
    message: redactText(failure.message, secrets),
    expected: redactText(failure.expected, secrets),
    received: redactText(failure.received, secrets),
  }
}

function withoutKeys(options: RunOptions): RuleContext['options'] {
  const { apiKey: _apiKey, enterpriseApiKey: _enterprise, limitedApiKey: _limited, ...rest } = options
  return { ...rest, hasEnterpriseKey: Boolean(options.enterpriseApiKey), hasLimitedKey: Boolean(options.limitedApiKey) }
}

/** Facts read once per run and shared by the rules; read through the asking rule's requests. */
function createFacts(cache: Map<string, unknown>, request: RuleContext['request']): Facts {
  const shops = async () => {
    if (!cache.has('shops')) {
      const reply = await request('GET /account/shops')
      cache.set('shops', Array.isArray(reply.json?.data) ? reply.json.data : [])
    }
    return cache.get('shops') as Awaited<ReturnType<Facts['shops']>>
  }
  return {
    shops,
    async inactiveShopId() {
      return (await shops()).find((s) => s.is_active === false)?.shop_id
    },
  }
}
