/**
 * `shoptwin proxy` in process: a proxy in front of an upstream that grades every exchange, and,
 * with `inject`, produces certify-client's situations. `stop()` closes it and hands back the report.
 */
import { loadContract, type Contract } from '../openapi/index.ts'
import type { Profile } from '../conformance/certify-client/profile.ts'
import { createGrader, type Graded, type ProxyReport } from './grade.ts'
import { createInjector } from './inject.ts'
import { createProxyServer } from './server.ts'
import { createBacklog } from './backlog.ts'
import type { ProxyExchange } from './exchange.ts'

export interface ProxyOptions {
  upstream: string
  port?: number
  host?: string
  /** certify-client's profile to apply (--inject); none: the proxy changes nothing. */
  inject?: Profile
  seed?: number
  /** Milliseconds the upstream may stay silent before the client gets 504 (default 30 s). */
  timeoutMs?: number
  /** Milliseconds a client's kept-alive connection may stay idle (default 5 s). */
  clientIdleMs?: number
  failOn?: ProxyReport['failOn']
  /** The clock exchanges are timed on (tests pass the twin's); default the wall clock. */
  now?: () => number
  contract?: Contract
  commandLine?: string
  /** Called with each graded exchange (the CLI's live line). */
  onExchange?: (graded: Graded) => void
  /** Called when --inject produces a situation, before it is applied (the exchange is not finished). */
  onInject?: (x: ProxyExchange) => void
  /** How many answered exchanges may wait to be graded while requests are in flight (proxy/backlog.ts); 0 grades each at once. */
  gradingBacklog?: number
  /** How far, in ms, the graded exchanges (onExchange) may run behind the traffic: a person watches them (the CLI on a terminal, LIVE_MS). Default: graded in quiet spells only. */
  liveMs?: number
}

export interface RunningProxy {
  url: string
  /** The report of the traffic so far, the proxy still running. */
  report(): ProxyReport
  /** Stops (exchanges in progress finish first) and returns the final report. */
  stop(): Promise<ProxyReport>
  /** The secrets the traffic carried (keys, tokens), for a last redaction pass over what is written. */
  secrets(): string[]
  /** How many answered exchanges wait to be graded (proxy/backlog.ts). */
  waiting(): number
}

export async function startProxy({ upstream, port = 0, host = '127.0.0.1', inject, seed = 42, timeoutMs, clientIdleMs, failOn = 'must', now, contract = loadContract(), commandLine, onExchange, onInject, gradingBacklog, liveMs }: ProxyOptions): Promise<RunningProxy> {
  const grader = createGrader({ upstream, contract, now, inject, seed })
  const startedAt = new Date(now ? now() : Date.now())
  const server = createProxyServer({
    upstream,
    contract,
    timeoutMs,
    clientIdleMs,
    now,
    injector: inject ? createInjector(inject, seed) : undefined,
    onInject,
    // Graded off the request's path: in a quiet spell (no request in flight for a while), or past the backlog's bound (proxy/backlog.ts).
    onExchange: (x) => backlog.add(x),
    onIdle: () => backlog.idle(),
  })
  const backlog = createBacklog({
    grade(x) {
      const graded = grader.observe(x)
      onExchange?.(graded)
    },
    work: grader.work,
    busy: () => server.busy(),
    ...(gradingBacklog === undefined ? {} : { maxWaiting: gradingBacklog }),
    liveMs,
  })
  const url = await server.listen(port, host)
  const report = () => {
    backlog.flush()
    return grader.report({ proxyUrl: url, startedAt, inject, seed, failOn, commandLine })
  }
  return {
    url,
    report,
    secrets: () => grader.redactor.list(),
    waiting: () => backlog.waiting,
    async stop() {
      await server.close()
      return report()
    },
  }
}

export type { ProxyReport } from './grade.ts'
