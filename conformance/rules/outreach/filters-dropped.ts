import { automationBody, automationsTitled, createAutomation } from '../../resources.ts'
import { expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

const CATEGORIES = ['Beauty', 'Fashion', 'Home', 'Fitness', 'Food', 'Tech', 'Pets']
const UNITS_SOLD = ['0-10', '10-100', '100-1000']
const FOLLOWER_AGES = ['18-24', '25-34', '35-44']

export const filtersDropped: Rule = {
  id: 'outreach.filters-dropped',
  title: 'Audience filters beyond 5 categories and 2 units_sold / follower_ages entries are silently dropped, not refused',
  spec: 'Outreach automations (outreach_filters); Limits: automation audience filters',
  level: 'MUST',
  quote: ['The audience estimator silently drops `categories` beyond 5 entries and `units_sold` / `follower_ages` beyond 2.', '| Automation audience filters | `categories` beyond 5 and `units_sold` / `follower_ages` beyond 2 entries are silently dropped |'],
  writes: true,
  operations: ['POST /automations/create', 'POST /automations/list'],
  async run(t) {
    const title = t.name('automation')
    const body = { ...automationBody(title), outreach_filters: { follower_min: 1000, categories: CATEGORIES, units_sold: UNITS_SOLD, follower_ages: FOLLOWER_AGES } }
    const created = await createAutomation(t, body)
    if (!expectSuccess(t, created, 'an automation with too many filter entries is created, not refused')) return
    const stored = (await automationsTitled(t, title))?.[0]
    if (!stored?.outreach_filters) {
      return t.warn({ operation: 'POST /automations/list', message: 'the stored outreach_filters are not shown: which entries were kept was not observable', expected: 'the automation with its outreach_filters', received: 'none' })
    }
    const filters = stored.outreach_filters
    const keeps = (field: string, sent: string[], max: number) => {
      const kept = filters[field]
      // Whether the stored filters or only the audience estimator drop the extra entries is not shown: a warning.
      if (!(Array.isArray(kept) && kept.length === max && kept.every((v: string, i: number) => v === sent[i]))) t.warn({
        operation: 'POST /automations/list',
        message: `${field} keeps its first ${max} entries`,
        expected: JSON.stringify(sent.slice(0, max)),
        received: JSON.stringify(kept),
      })
    }
    keeps('categories', CATEGORIES, 5)
    keeps('units_sold', UNITS_SOLD, 2)
    keeps('follower_ages', FOLLOWER_AGES, 2)
  },
}
