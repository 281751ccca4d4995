/**
 * A rule's id names its file: `conformance/rules/<area>/<name>.ts` holds the rule `<area>.<name>`,
 * so a failure in a report leads to its code in one step. Files without a rule (helpers such as
 * sorting/cases.ts) are passed over; every rule of the catalogue must come from a file of its name.
 */
import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { catalogue } from '../conformance/catalogue.ts'

const rulesDir = resolve(import.meta.dirname, '../conformance/rules')

const isRule = (value: unknown): value is { id: string } =>
  !!value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' && typeof (value as { run?: unknown }).run === 'function'

describe('conformance rule files', () => {
  it('each rule file holds one rule whose id is <area>.<file name>, and every catalogue rule has its file', async () => {
    const mismatches: string[] = []
    const fromFiles = new Set<string>()
    for (const area of readdirSync(rulesDir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const file of readdirSync(join(rulesDir, area.name)).filter((f) => f.endsWith('.ts'))) {
        const module = (await import(pathToFileURL(join(rulesDir, area.name, file)).href)) as Record<string, unknown>
        const rules = Object.values(module).filter(isRule)
        if (rules.length === 0) continue
        const expected = `${area.name}.${file.slice(0, -'.ts'.length)}`
        if (rules.length !== 1 || rules[0]!.id !== expected) mismatches.push(`${area.name}/${file}: ${rules.map((r) => r.id).join(', ')} (expected ${expected})`)
        for (const rule of rules) fromFiles.add(rule.id)
      }
    }
    expect(mismatches).toEqual([])
    const withoutFile = catalogue.map((r) => r.id).filter((id) => !fromFiles.has(id))
    expect(withoutFile).toEqual([])
  })
})
