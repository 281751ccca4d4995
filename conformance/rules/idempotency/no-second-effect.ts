import { automationBody, automationsTitled, cleanupAutomationsTitled, createAutomation, idempotencyKey } from '../../resources.ts'
import { expectSuccess } from '../../support.ts'
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
    const created = await automationsTitled(t, title)
    if (!created) return t.skip('the target has no automation listing to count side effects with')
    t.check(created.length === 1, {
      operation: 'POST /automations/create',
      message: 'two requests with one key created one automation',
      expected: '1 automation titled ' + title,
      received: `${created.length} (${created.map((a) => a.campaign_id).join(', ')})`,
    })
  },
}
