/**
 * Every rule of the suite, in the order they run: area by area as rules/index.ts lists them
 * (auth, idempotency, dashboards, paging, sorting, dates, aliases, then the areas' own rules and
 * the contract's), reading and writing rules mixed (each rule cleans up after its writes); the
 * rate-limit burst runs late so its window cannot disturb other rules; the schema verdict over
 * every response of the run comes last.
 */
import type { Rule } from './types.ts'
import { rules } from './rules/index.ts'

export const catalogue: readonly Rule[] = rules

/** The rule that judges the schema of every response the other rules received. */
export const SCHEMA_VERDICT = 'contract.responses-valid'

/**
 * The rules matching the patterns: exact ids, areas (`idempotency`), globs (`idempotency.*`,
 * `*.replay-*`). The schema verdict always comes along (last) when any rule is selected: every
 * response a run receives is judged against the contract.
 */
export function selectRules(patterns: readonly string[], from: readonly Rule[] = catalogue): Rule[] {
  if (!patterns.length) return [...from]
  const matching = matchRules(patterns, from)
  const verdict = from.find((r) => r.id === SCHEMA_VERDICT)
  return matching.length && verdict && !matching.includes(verdict) ? [...matching, verdict] : matching
}

function matchRules(patterns: readonly string[], from: readonly Rule[]): Rule[] {
  const tests = patterns.map((p) => {
    if (!p.includes('*')) return (id: string) => id === p || id.split('.')[0] === p
    const re = new RegExp(`^${p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)
    return (id: string) => re.test(id)
  })
  return from.filter((rule) => tests.some((test) => test(rule.id)))
}
