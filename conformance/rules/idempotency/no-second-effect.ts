import { automationBody, automationsTitled, cleanupAutomationsTitled, createAutomation, idempotencyKey } from '../../resources.ts'
import { describe, expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const noSecondEffect: Rule = {
  id: 'idempotency.no-second-effect',
  title: 'A replayed write does not act a second time (one automation for two requests with one key)',
  spec: 'Idempotency',
  level: 'MUST',
  quote: ['With it: response (status and body) cached 24 hours per shop and key; replay returns the original response identically'],
  writes: true,
  operations: ['POST /automations/create', 'POST /automations/list'],
  async run(t) {
    const title = t.name('second-effect')
    cleanupAutomationsTitled(t, title)
    const key = idempotencyKey(t)
    const first = await createAutomation(t, automationBody(title), { idempotencyKey: key })
    if (!expectSuccess(t, first, 'the first request succeeds')) return
    await createAutomation(t, automationBody(title), { idempotencyKey: key })
    const listing = await t.request('POST /automations/list', { body: {} })
    // The automation listing is the contract's inference (spec: Outreach automations: "the remaining
    // operations of this group: not shown"), and no write the spec shows has a second effect a read
    // can count (lists: re-adding is "a silent no-op"; a replay's answer is the first one's).
    if (listing.op.inferred && listing.status === 404) return t.notCheckable('the target has no automation listing to count side effects with (the spec shows none)')
    const created = await automationsTitled(t, title)
    if (!created) return t.skip(`the automation listing answered ${describe(listing)}: nothing to count side effects with`)
    t.check(created.length === 1, {
      operation: 'POST /automations/create',
      message: 'two requests with one key created one automation',
      expected: '1 automation titled ' + title,
      received: `${created.length} (${created.map((a) => a.campaign_id).join(', ')})`,
    })
  },
}
