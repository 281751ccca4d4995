import { describe, expectSuccess, rowsOf } from '../../support.ts'
import type { Reply, Rule } from '../../types.ts'

const applyIds = (reply: Reply) => rowsOf(reply.json).map((r) => r.apply_id as string)

export const ignoreHides: Rule = {
  id: 'samples.ignore-hides',
  title: 'Ignoring a sample request hides it from the review list (shown only under sample_status ignore), keeps its status, and unignore reverses it',
  spec: 'States and transitions: Sample request ignored; Samples: ignore, unignore, list',
  level: 'MUST',
  quote: ['Ignore hides it from the review queue, search (unless filtered with `sample_status` of `ignore`) and the funnel (unless `include_ignored`); the platform status is unchanged; unignore reverses it.'],
  writes: true,
  operations: ['POST /affiliate/samples/list', 'POST /affiliate/samples/ignore', 'POST /affiliate/samples/unignore'],
  async run(t) {
    const list = (filters: Record<string, unknown> = {}) => t.request('POST /affiliate/samples/list', { body: { page_size: 100, page_number: 1, filters } })
    const before = await list()
    if (!expectSuccess(t, before, 'the sample list is served')) return
    const target = rowsOf(before.json)[0]
    if (!target?.apply_id) return t.skip('the shop has no sample request to ignore')
    const id = target.apply_id as string
    // Ignoring contacts neither the platform nor the creator; the clean-up undoes it whatever happens.
    t.cleanup(() => t.request('POST /affiliate/samples/unignore', { body: { apply_ids: [id] } }))
    if (!expectSuccess(t, await t.request('POST /affiliate/samples/ignore', { body: { apply_ids: [id] } }), 'ignore is served')) return
    const hidden = await list({ handle: target.handle })
    t.check(!applyIds(hidden).includes(id), { operation: hidden.op.permission, message: 'an ignored request leaves the review list', expected: `no apply_id ${id}`, received: describe(hidden, 300), exchange: hidden.exchange })
    const ignored = await list({ sample_status: ['ignore'] })
    const shown = rowsOf(ignored.json).find((r) => r.apply_id === id)
    t.check(shown !== undefined && shown.status === target.status, {
      operation: ignored.op.permission,
      message: 'it shows under sample_status ignore, its platform status unchanged',
      expected: `apply_id ${id} with status ${target.status}`,
      received: shown ? `status ${shown.status}` : describe(ignored, 300),
      exchange: ignored.exchange,
    })
    if (!expectSuccess(t, await t.request('POST /affiliate/samples/unignore', { body: { apply_ids: [id] } }), 'unignore is served')) return
    const back = await list({ handle: target.handle })
    t.check(applyIds(back).includes(id), { operation: back.op.permission, message: 'unignore brings the request back to the review list', expected: `apply_id ${id} listed`, received: describe(back, 300), exchange: back.exchange })
  },
}
