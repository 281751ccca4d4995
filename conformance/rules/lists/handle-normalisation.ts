import { crmHandles } from '../../resources.ts'
import { describe, expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const handleNormalisation: Rule = {
  id: 'lists.handle-normalisation',
  title: 'List handles are trimmed, lose a leading @ and are lowercased; unknown handles are reported in unmatched, handles over 30 characters are not added; re-adding is a no-op',
  spec: 'Resources: Rules of the named resources (Lists); Limits: lists',
  level: 'MUST',
  quote: ['Lists: creating into an existing title appends; re-adding a handle already present is a silent no-op. Handles are trimmed, lose a leading `@`, are lowercased and validated against `[a-z0-9._]`, maximum 30 characters; handles not matching a known creator are skipped and reported in `unmatched`.'],
  writes: true,
  operations: ['POST /lists/create', 'DELETE /lists/delete', 'POST /affiliate/crm/list'],
  async run(t) {
    const [handle] = await crmHandles(t, 5)
    if (!handle) return t.skip('the CRM has no creator with a plain handle')
    const title = t.name('list')
    t.cleanup(() => t.request('DELETE /lists/delete', { body: { title } }))
    const unknown = 'zz.conformance.nobody'
    const tooLong = `a${'b'.repeat(30)}`
    const created = await t.request('POST /lists/create', { body: { title, handles: [`  @${handle.toUpperCase()} `, unknown] } })
    if (!expectSuccess(t, created, 'the list is created')) return
    const result = created.json.data ?? {}
    const unmatched = (result.unmatched ?? []) as string[]
    t.check(result.added_count === 1, { operation: created.op.permission, message: `"  @${handle.toUpperCase()} " normalises to the known handle ${handle} and is added`, expected: 'added_count: 1', received: describe(created), exchange: created.exchange })
    t.check(unmatched.some((h) => h.includes(unknown)), {
      operation: created.op.permission,
      message: 'a handle matching no creator is skipped and reported in unmatched',
      expected: `unmatched containing ${unknown}`,
      received: describe(created),
      exchange: created.exchange,
    })
    t.check(!unmatched.some((h) => h.toLowerCase().includes(handle)), { operation: created.op.permission, message: 'the normalised known handle is not reported unmatched', expected: `unmatched without ${handle}`, received: describe(created), exchange: created.exchange })
    // spec: handles are at most 30 characters. Whether the call is refused or the handle skipped is not shown.
    const long = await t.request('POST /lists/create', { body: { title, handles: [tooLong] } })
    t.check(long.status === 400 || (long.status < 300 && long.json?.data?.added_count === 0), { operation: long.op.permission, message: 'a handle over 30 characters is not added', expected: 'HTTP 400, or added_count 0', received: describe(long), exchange: long.exchange })
    // spec: creating into an existing title appends; re-adding a handle already present is a silent no-op.
    const again = await t.request('POST /lists/create', { body: { title, handles: [handle] } })
    if (expectSuccess(t, again, 'creating into the same title is served')) {
      t.check(again.json.data?.added_count === 0, { operation: again.op.permission, message: 're-adding a handle already in the list adds nothing', expected: 'added_count: 0', received: describe(again), exchange: again.exchange })
    }
  },
}
