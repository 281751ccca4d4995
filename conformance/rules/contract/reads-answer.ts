import { isWrite, typicalRequest } from '../../examples.ts'
import { describe, isSuccess } from '../../support.ts'
import type { Rule, RuleContext } from '../../types.ts'

/** Identifiers some reads need, found by reading (undefined when the shop has none). */
async function knownIds(t: RuleContext): Promise<Record<string, unknown>> {
  const ids: Record<string, unknown> = {}
  const dashboards = await t.request('POST /dashboards/list', { body: {} })
  const dashboardId = dashboards.json?.data?.dashboards?.[0]?.id
  if (dashboardId) ids.dashboard_id = dashboardId
  const workflows = await t.request('POST /workflows/list', { body: {} })
  const workflowId = (workflows.json?.data?.workflows ?? workflows.json?.data?.results ?? [])[0]?.workflow_id
  if (workflowId) ids.workflow_id = workflowId
  return ids
}

export const readsAnswer: Rule = {
  id: 'contract.reads-answer',
  title: 'Every reading operation answers a minimal valid request with its documented success',
  spec: 'Endpoints (every operation of the contract)',
  level: 'MUST',
  quote: ['A machine-readable OpenAPI 3.1 description exists; each operation has a unique operationId and names the permission it needs.'],
  writes: false,
  operations: ['every reading operation'],
  timeoutSeconds: 240,
  async run(t) {
    const ids = await knownIds(t)
    for (const op of t.operations().filter((o) => !isWrite(o))) {
      if (op.pathParams.length) {
        // GET /idempotency/{key}: a key never used is the minimal valid lookup (404 is its documented answer).
        const reply = await t.request(op, { pathParams: Object.fromEntries(op.pathParams.map((p) => [p.name, t.name('sweep')])) })
        t.check(reply.status === 404 || isSuccess(reply), { operation: op.permission, message: 'answers a lookup', expected: 'HTTP 200 or 404', received: describe(reply), exchange: reply.exchange })
        continue
      }
      const apiKey = op.enterprise && t.options.hasEnterpriseKey ? t.enterpriseKey() : undefined
      const request = typicalRequest(t.contract, op, ids)
      // An id the shop has none of is sent as conformance-missing: not found is then the right answer.
      const missingId = JSON.stringify(request).includes('conformance-missing')
      const reply = await t.request(op, { ...request, ...(apiKey ? { apiKey } : {}) })
      // Without an Enterprise key, a standard key is refused: 403 is the documented answer then.
      const expected = op.enterprise && !apiKey ? [403] : missingId ? [op.successStatus, 404] : [op.successStatus]
      if (op.inferred && reply.status === 404 && !missingId) {
        t.warn({ operation: op.permission, message: 'inferred path not found on the target', expected: `HTTP ${op.successStatus}`, received: describe(reply), exchange: reply.exchange })
        continue
      }
      t.check(expected.includes(reply.status), {
        operation: op.permission,
        message: 'answers a minimal valid request',
        expected: `HTTP ${expected.join(' or ')}`,
        received: describe(reply),
        exchange: reply.exchange,
      })
    }
  },
}
