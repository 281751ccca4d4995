import { describe, expectError, isSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const scalePlanGate: Rule = {
  id: 'auth.scale-plan-gate',
  title: 'Workflow toggle answers 403 on a shop below the Scale plan, while workflow reads work on any plan',
  spec: 'Authentication 5; Resources: Rules of the named resources (Workflows)',
  level: 'MUST',
  quote: ['Reads work on any plan; toggle returns 403 below the Scale plan.'],
  writes: true,
  operations: ['POST /workflows/list', 'POST /workflows/toggle'],
  async run(t) {
    const below = (await t.facts.shops()).find((s) => s.is_active && s.plan !== 'scale')
    if (!below) return t.skip('the account has no active shop below the Scale plan')
    const list = await t.request('POST /workflows/list', { shopId: below.shop_id, body: {} })
    // The workflow paths are inferred (spec: Workflows: "Paths, bodies and responses: not shown"): a target without them says 404.
    if (list.op.inferred && list.status === 404) return t.notCheckable('the target does not serve the workflow paths the contract inferred (the spec shows none)')
    t.check(isSuccess(list), { operation: list.op.permission, message: 'workflow reads work below the Scale plan', expected: 'HTTP 200', received: describe(list), exchange: list.exchange })
    const workflowId = ((list.json?.data?.workflows ?? []) as Array<{ workflow_id?: string }>)[0]?.workflow_id ?? 'conformance-missing'
    const toggle = await t.request('POST /workflows/toggle', { shopId: below.shop_id, body: { workflow_id: workflowId } })
    // A toggle that went through is undone: the rule leaves the shop as it found it.
    if (isSuccess(toggle)) t.cleanup(() => t.request('POST /workflows/toggle', { shopId: below.shop_id, body: { workflow_id: workflowId } }))
    expectError(t, toggle, 403, undefined, `workflow toggle is refused on a ${below.plan} shop`)
  },
}
