/**
 * The connector rules' outcomes as a RunReport, so that the REST suite's reporters (JUnit, JSON, the
 * HTML certificate) and its verdict serve `shoptwin conformance --mcp-url` too. The certificate covers
 * what the connector rules reach (the union of their `operations`), and a rule skipped for want of a
 * user or of the API is a MUST rule not run: the verdict is then PASSED, NOT CERTIFIED at best.
 */
import { indexConnectorOperations, loadContract } from '../../../openapi/index.ts'
import { buildReport, type CoverageScope, type CoveredOperation, type RunReport } from '../../report.ts'
import type { RuleOutcome } from '../../types.ts'
import type { ConnectorOutcome } from './run.ts'
import type { ConnectorRule } from './types.ts'

export interface ConnectorReportInput {
  mcpUrl: string
  outcomes: ConnectorOutcome[]
  rules: readonly ConnectorRule[]
  startedAt: Date
  /** Whether a user who may consent, and the REST API, were given (facts of the run). */
  hasUser: boolean
  hasApi: boolean
  requireCertified?: boolean
}

/**
 * What a connector certificate covers: the operations the connector rules reach (connector's first),
 * and the contract's connector operations no rule checks, which the verdict names (the connections
 * page is the twin's own dashboard surface).
 */
export function connectorCoverage(rules: readonly ConnectorRule[]): CoverageScope {
  const operations = connectorCoverageScope(rules)
  const checked = new Set(operations.map((o) => o.operationId))
  const unchecked = indexConnectorOperations(loadContract().doc).filter((o) => !checked.has(o.operationId)).map((o) => `${o.method} ${o.path}`)
  return { operations, noun: 'operations the connector rules check', unchecked: { operations: unchecked, of: "the contract's connector operations" } }
}

/** The operations the connector rules reach, as the contract names them (connector's first). */
function connectorCoverageScope(rules: readonly ConnectorRule[]): CoveredOperation[] {
  const contract = loadContract()
  const wanted = new Set(rules.flatMap((r) => r.operations))
  const connector = indexConnectorOperations(contract.doc)
    .filter((o) => wanted.has(o.operationId))
    .map((o) => ({ operationId: o.operationId, permission: `${o.method} ${o.path}`, tag: 'Connector', inferred: o.operation['x-inferred'] === true }))
  const api = contract.operations.filter((o) => wanted.has(o.operationId)).map((o) => ({ operationId: o.operationId, permission: o.permission, tag: o.tag, inferred: o.inferred }))
  return [...connector, ...api]
}

/** A connector rule's outcome in the reporters' vocabulary. */
export function toRuleOutcome(outcome: ConnectorOutcome, rule: ConnectorRule | undefined): RuleOutcome {
  return {
    id: outcome.id,
    title: outcome.title,
    spec: outcome.spec,
    level: outcome.level,
    ...(rule ? { quote: rule.quote, ...(rule.inferred ? { inferred: rule.inferred } : {}) } : {}),
    // Registering a client (and, past sign-in, a connection) is a write on the target.
    writes: (rule?.operations ?? []).includes('registerConnectorClient'),
    area: 'connector',
    status: outcome.status,
    ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
    failures: outcome.failures.map((f) => ({ ...f })),
    warnings: [],
    operations: outcome.operations,
    exchanges: outcome.exchanges,
    durationMs: outcome.durationMs,
  }
}

export function connectorRunReport({ mcpUrl, outcomes, rules, startedAt, hasUser, hasApi, requireCertified = false }: ConnectorReportInput): RunReport {
  const byId = new Map(rules.map((r) => [r.id, r]))
  const report = buildReport(
    loadContract(),
    { baseUrl: mcpUrl, apiKey: '', shopId: '', allowWrites: true, rules: [], rps: 0, haloBoundSeconds: 0, ruleTimeoutSeconds: 15, requireCertified },
    outcomes.map((o) => toRuleOutcome(o, byId.get(o.id))),
    [],
    startedAt,
    rules,
    connectorCoverage(rules),
  )
  report.door = 'connector'
  report.facts = [
    ['User', hasUser ? 'given (--mcp-user): the rules past sign-in ran' : 'none (--mcp-user): the rules past sign-in were not run'],
    ['REST API', hasApi ? 'given (--base-url, --api-key): the activity log was read' : 'none (--base-url, --api-key): the activity-log rule was not run'],
    ['Writes', 'registers OAuth clients named "shoptwin conformance" and, with a user, consents to connections (one of them is revoked by its rule)'],
    ['Credentials', 'the password, the API key, tokens, codes, verifiers, request ids and cookies are redacted everywhere in this report'],
  ]
  return report
}
