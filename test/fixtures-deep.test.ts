/**
 * What makes the certification world's deep listings affordable keeps the world the same: a DenseGrid
 * with first days reads and converts like a full one, and Rng.sample of a few out of many draws the
 * same items as the whole-copy shuffle (test/certify-client-situations.test.ts holds the listings deep).
 */
import { describe, expect, it } from 'vitest'
import { DayAxis, DenseGrid } from '../fixtures/index.ts'
import { Rng } from '../fixtures/random.ts'

describe('fixtures: the deep world\'s building blocks', () => {
  it('DenseGrid with first days: absent and 0 before an entity\'s first day, a write there throws, the table equals a full grid\'s', () => {
    const axis = new DayAxis('2026-11-20')
    const metrics = ['gmv', 'units'] as const
    const ids = ['a', 'b', 'c']
    const firstDays = [0, 100, axis.count - 3]
    const full = new DenseGrid(metrics, ids, axis.count)
    const partial = new DenseGrid(metrics, ids, axis.count, firstDays)
    const rng = Rng.scoped(1, 'grid')
    ids.forEach((_, e) => {
      for (let d = firstDays[e]!; d < axis.count; d++) {
        if (!rng.chance(0.5)) continue
        const gmv = rng.int(0, 100)
        for (const grid of [full, partial]) {
          grid.add('gmv', e, d, gmv)
          grid.set('units', e, d, gmv % 7)
        }
      }
    })
    expect(partial.values.length).toBeLessThan(full.values.length)
    expect(partial.isPresent(1, 99)).toBe(false)
    expect(partial.get('gmv', 1, 99)).toBe(0)
    expect(() => partial.add('gmv', 1, 99, 1)).toThrow(/starts on day 100/)
    for (let e = 0; e < ids.length; e++) for (let d = 0; d < axis.count; d++) expect([e, d, partial.isPresent(e, d), partial.get('gmv', e, d)]).toEqual([e, d, full.isPresent(e, d), full.get('gmv', e, d)])
    const table = (grid: DenseGrid<'gmv' | 'units'>) => ids.map((id) => grid.toTable('t', axis).rows(id))
    expect(table(partial)).toEqual(table(full))
  })

  it('Rng.sample: a few out of many are the items and the order of the whole-copy partial shuffle', () => {
    const items = Array.from({ length: 5_000 }, (_, i) => i)
    for (const count of [0, 1, 3, 600]) {
      const a = Rng.scoped(7, 'sample', count)
      const b = Rng.scoped(7, 'sample', count)
      // The reference: the partial Fisher-Yates over a whole copy.
      const copy = items.slice()
      for (let i = 0; i < count; i++) {
        const j = i + Math.floor(b.next() * (copy.length - i))
        ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
      }
      expect(a.sample(items, count)).toEqual(copy.slice(0, count))
      expect(a.next()).toBe(b.next())
    }
  })
})
