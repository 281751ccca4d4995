import { automationBody, createAutomation, idempotencyKey } from '../../resources.ts'
import { describe, expectSuccess, sameJson } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const lookupStates: Rule = {
  id: 'idempotency.lookup-states',
  title: 'GET /idempotency/{key} shows processing without a response, then completed with the original status and body',
  spec: 'Idempotency; States and transitions: Idempotency processing, completed',
  level: 'MUST',
  quote: ['200 returns `{idempotency: {status, response_status?, response_body?}}` where the last two appear only when status is `completed`.', 'A write with the key starts it; it becomes `completed` when the first request finishes and its response is cached.'],
  writes: true,
  operations: ['POST /automations/create', 'GET /idempotency/{key}'],
  async run(t) {
    const key = idempotencyKey(t)
    // Look up while the write may still be in flight: `processing` must carry no response yet.
    await t.quiet()
    const [created, early] = await Promise.all([
      createAutomation(t, automationBody(t.name('automation')), { idempotencyKey: key, unthrottled: true }),
      t.request('GET /idempotency/{key}', { pathParams: { key }, unthrottled: true }),
    ])
    const earlyRecord = early.json?.idempotency
    if (early.status === 200 && earlyRecord?.status === 'processing') {
      t.check(!('response_status' in earlyRecord) && !('response_body' in earlyRecord), {
        operation: early.op.permission,
        message: 'a processing record has no response_status or response_body',
        expected: '{"idempotency": {"status": "processing"}}',
        received: describe(early),
        exchange: early.exchange,
      })
    }
    if (!expectSuccess(t, created, 'the write succeeds')) return
    const lookup = await t.request('GET /idempotency/{key}', { pathParams: { key } })
    const record = lookup.json?.idempotency
    t.check(lookup.status === 200 && record?.status === 'completed' && record.response_status === created.status && sameJson(record.response_body, created.json), {
      operation: lookup.op.permission,
      message: 'after the write the record is completed with the original status and body',
      expected: `HTTP 200 {"idempotency": {"status": "completed", "response_status": ${created.status}, "response_body": <the original body>}}`,
      received: describe(lookup),
      exchange: lookup.exchange,
    })
  },
}
