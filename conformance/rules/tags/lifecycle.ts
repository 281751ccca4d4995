import { crmHandles } from '../../resources.ts'
import { describe, expectSuccess, rowsOf } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const tagLifecycle: Rule = {
  id: 'tags.lifecycle',
  title: 'Tagging with a new name creates the tag, the CRM filters by it (case preserved), and a tag with no creators disappears',
  spec: 'Resources: Rules of the named resources (Tags)',
  level: 'MUST',
  quote: ['Tags: tagging with a new name creates it; a tag with no creators disappears', 'names are 1-60 characters, case preserved (`VIP` and `vip` differ). Tags filter the CRM list through `include_tags` and `exclude_tags`.'],
  writes: true,
  operations: ['POST /tags/add', 'POST /tags/remove', 'POST /tags/list', 'POST /affiliate/crm/list'],
  async run(t) {
    const [handle] = await crmHandles(t, 5)
    if (!handle) return t.skip('the CRM has no creator with a plain handle')
    const tag = t.name('Tag')
    t.cleanup(() => t.request('POST /tags/remove', { body: { tag, handles: [handle] } }))
    const listed = async () => {
      const reply = await t.request('POST /tags/list', { body: { search: tag } })
      return { reply, entry: ((reply.json?.data?.tags ?? []) as Array<Record<string, any>>).find((e) => e.tag === tag) }
    }
    const crmWith = async (tags: string[]) => {
      const reply = await t.request('POST /affiliate/crm/list', { body: { page_size: 100, page_number: 1, filters: { include_tags: tags } } })
      return { reply, handles: rowsOf(reply.json).map((r) => r.handle) }
    }
    const added = await t.request('POST /tags/add', { body: { tag, handles: [`@${handle}`] } })
    if (!expectSuccess(t, added, 'tagging a CRM creator is served')) return
    t.check(added.json.data?.added_count === 1, { operation: added.op.permission, message: 'the creator is tagged', expected: 'added_count: 1', received: describe(added), exchange: added.exchange })
    const afterAdd = await listed()
    t.check(afterAdd.entry?.creator_count === 1, { operation: afterAdd.reply.op.permission, message: 'tagging with a new name creates the tag', expected: `${tag} with creator_count 1`, received: describe(afterAdd.reply), exchange: afterAdd.reply.exchange })
    const filtered = await crmWith([tag])
    t.check(filtered.handles.length === 1 && filtered.handles[0] === handle, { operation: filtered.reply.op.permission, message: 'include_tags returns exactly the tagged creator', expected: `[${handle}]`, received: describe(filtered.reply, 200), exchange: filtered.reply.exchange })
    const otherCase = await crmWith([tag.toUpperCase()])
    t.check(isEmpty(otherCase.handles), { operation: otherCase.reply.op.permission, message: 'tag names are case-sensitive (VIP and vip differ)', expected: 'no creator', received: describe(otherCase.reply, 200), exchange: otherCase.reply.exchange })
    const removed = await t.request('POST /tags/remove', { body: { tag, handles: [handle] } })
    if (!expectSuccess(t, removed, 'untagging is served')) return
    const afterRemove = await listed()
    t.check(afterRemove.entry === undefined, { operation: afterRemove.reply.op.permission, message: 'a tag with no creators disappears', expected: `no ${tag} in the tag list`, received: describe(afterRemove.reply), exchange: afterRemove.reply.exchange })
  },
}

const isEmpty = (handles: unknown[]) => handles.length === 0
