import { automationBody, cleanupAutomationsTitled, createAutomation, idempotencyKey } from '../../resources.ts'
import { describe, expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const replayIdentical: Rule = {
  id: 'idempotency.replay-identical',
  title: 'A replay returns the original status and body byte for byte',
  spec: 'Idempotency; States and transitions: Idempotency completed',
  level: 'MUST',
  quote: ['Replay with the same key returns the original status and body byte for byte'],
  writes: true,
  operations: ['POST /automations/create'],
  async run(t) {
    const title = t.name('replay')
    cleanupAutomationsTitled(t, title)
    const key = idempotencyKey(t)
    const first = await createAutomation(t, automationBody(title), { idempotencyKey: key })
    if (!expectSuccess(t, first, 'the first request succeeds')) return
    const replay = await createAutomation(t, automationBody(title), { idempotencyKey: key })
    t.check(replay.status === first.status && replay.text === first.text, {
      operation: replay.op.permission,
      message: 'the replay is identical to the first answer (status and body bytes)',
      expected: describe(first),
      received: describe(replay),
      exchange: replay.exchange,
    })
  },
}
