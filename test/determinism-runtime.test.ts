/**
 * What makes answers depend on the runtime rather than on the seed, `--today` and clock, one class per
 * block (the whole corpus on Node 22 against Node 24: test/determinism-versions.install-test.ts, in
 * `npm run test:install`):
 * - a sort whose comparator is not a total order: Array.prototype.sort then gives an order that depends
 *   on the engine's algorithm and on the input's order;
 * - text read from a locale's pattern (DateTimeFormat's format(), toLocaleString): CLDR data that changes
 *   with the runtime's ICU; parts (formatToParts) and our own formatters do not;
 * - locale-sensitive calls in the twin's source (localeCompare, toLocale*, Intl.Collator, NumberFormat...),
 *   which follow the machine's default locale or ICU's version.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { calendarDateOf } from '../fixtures/days.ts'
import { dateInZone } from '../mock/lib/dates.ts'
import { compareValues, sortRows, type SortValue } from '../mock/lib/sort.ts'
import { groupedDigits, messages } from '../mock/messages.ts'

const root = fileURLToPath(new URL('..', import.meta.url))

const sortValue: fc.Arbitrary<SortValue> = fc.oneof(
  fc.double(),
  fc.constantFrom(Number.NaN, -0, 0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  fc.integer({ min: -3, max: 3 }),
  fc.boolean(),
  fc.string({ maxLength: 3 }),
  fc.constantFrom('1', '10', '9', 'true', 'NaN', 'null', 'é', 'e\u0301'),
  fc.constant(null),
  fc.constant(undefined),
)

describe('sorting: a total order, whatever the input order and the engine', () => {
  it('sortRows gives the same order for every permutation of the rows (NaN, infinities, -0, mixed kinds, nulls)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.record({ id: fc.string({ maxLength: 4 }), key: sortValue }), { selector: (r) => r.id, maxLength: 12 }), fc.constantFrom('asc', 'desc', 'ASC', 'DESC') as fc.Arbitrary<'asc' | 'desc' | 'ASC' | 'DESC'>, fc.infiniteStream(fc.nat()), (rows, direction, seeds) => {
        const order = (input: typeof rows) => sortRows(input, (r) => r.key, direction, (r) => r.id).map((r) => r.id)
        const expected = order(rows)
        // A few shuffles (Fisher-Yates driven by the stream) and the reverse.
        for (let k = 0; k < 4; k++) {
          const shuffled = rows.slice()
          for (let i = shuffled.length - 1; i > 0; i--) {
            const j = seeds.next().value % (i + 1)
            ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
          }
          expect(order(shuffled)).toEqual(expected)
        }
        expect(order(rows.slice().reverse())).toEqual(expected)
      }),
      { numRuns: 400 },
    )
  })

  it('compareValues is antisymmetric and transitive over values that are not missing', () => {
    const present = sortValue.filter((v) => v !== null && v !== undefined && !(typeof v === 'number' && Number.isNaN(v)))
    fc.assert(
      fc.property(present, present, present, (a, b, c) => {
        expect(Math.sign(compareValues(a, b))).toBe(-Math.sign(compareValues(b, a)) || 0)
        if (compareValues(a, b) <= 0 && compareValues(b, c) <= 0) expect(compareValues(a, c)).toBeLessThanOrEqual(0)
      }),
      { numRuns: 2000 },
    )
  })

  it('a missing key (null, undefined, NaN) is last in both directions; kinds sort numbers, booleans, text', () => {
    const rows = [{ id: 'a', key: Number.NaN }, { id: 'b', key: 'x' }, { id: 'c', key: null }, { id: 'd', key: 2 }, { id: 'e', key: true }, { id: 'f', key: 1 }]
    expect(sortRows(rows, (r) => r.key, 'asc', (r) => r.id).map((r) => r.id)).toEqual(['f', 'd', 'e', 'b', 'a', 'c'])
    expect(sortRows(rows, (r) => r.key, 'desc', (r) => r.id).map((r) => r.id)).toEqual(['b', 'e', 'd', 'f', 'a', 'c'])
  })
})

describe('dates and numbers: read from parts and our own formatters, not from a locale\'s pattern', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('a zone\'s calendar date comes from the formatter\'s parts: the same when the locale\'s pattern is another (as another ICU has it)', () => {
    const instant = new Date('2026-03-10T12:00:00Z')
    const before = [dateInZone(instant, 'America/Asuncion'), dateInZone(instant, 'Pacific/Kiritimati'), calendarDateOf(new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' }), instant)]
    expect(before).toEqual(['2026-03-10', '2026-03-11', '2026-03-10'])
    // Another CLDR's pattern for every locale (en-CA's short date was M/D/YYYY in one ICU release).
    vi.spyOn(Intl.DateTimeFormat.prototype as unknown as { format: unknown }, 'format', 'get').mockReturnValue(() => '3/10/2026')
    expect([dateInZone(instant, 'America/Asuncion'), dateInZone(instant, 'Pacific/Kiritimati'), calendarDateOf(new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' }), instant)]).toEqual(before)
  })

  it('calendarDateOf pads what a formatter gives without 2-digit options (a year before 1000 too)', () => {
    const numeric = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', year: 'numeric', month: 'numeric', day: 'numeric' })
    expect(calendarDateOf(numeric, Date.UTC(2026, 0, 5))).toBe('2026-01-05')
    expect(calendarDateOf(numeric, Date.UTC(987, 8, 30))).toBe('0987-09-30')
  })

  it('the 429 message groups digits as en-US does, by our own formatter', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (n) => {
      expect(groupedDigits(n)).toBe(n.toLocaleString('en-US'))
    }), { numRuns: 500 })
    expect(messages.tooManyRequests('day', 1_000_000)).toBe('Too many requests: over 1,000,000 per day for this key and shop')
    expect(messages.tooManyRequests('second', 10)).toBe('Too many requests: over 10 per second for this key and shop')
  })
})

/** Calls whose result follows the machine's default locale or the runtime's ICU/CLDR version. */
const LOCALE_SENSITIVE: Array<[string, RegExp]> = [
  ['localeCompare', /\.localeCompare\(/],
  ['toLocale*', /\.toLocale(?:String|DateString|TimeString|UpperCase|LowerCase)\(/],
  ['Intl formatter', /\bIntl\.(?:Collator|NumberFormat|PluralRules|RelativeTimeFormat|ListFormat|DisplayNames|Segmenter|DurationFormat)\b/],
  ['DateTimeFormat text', /DateTimeFormat\([^()]*\)\.format\(|\b(?:\w*[fF]ormat|dtf)\.format\(/],
]

/** Source files of the twin's answers: mock/ and fixtures/, less tests and the console's page (a browser UI, not an answer). */
async function answerSources(): Promise<string[]> {
  const files: string[] = []
  for (const dir of ['mock', 'fixtures']) {
    for (const entry of await readdir(join(root, dir), { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name)
      if (entry.isFile() && path.endsWith('.ts') && !path.endsWith('.test.ts') && !relative(root, path).startsWith(join('mock', 'console'))) files.push(path)
    }
  }
  return files
}

describe('the twin\'s source calls nothing locale-sensitive', () => {
  it('mock/ and fixtures/ use no localeCompare, toLocale*, Intl collator or number formatter, and no DateTimeFormat text (parts only)', async () => {
    const found: string[] = []
    for (const file of await answerSources()) {
      const lines = (await readFile(file, 'utf8')).split('\n')
      lines.forEach((line, i) => {
        if (/^\s*(?:\/\/|\*|\/\*)/.test(line)) return
        for (const [what, pattern] of LOCALE_SENSITIVE) if (pattern.test(line)) found.push(`${relative(root, file)}:${i + 1} ${what}: ${line.trim().slice(0, 120)}`)
      })
    }
    expect(found).toEqual([])
  })

  it('the check finds each kind (planted lines)', () => {
    const planted = ["rows.sort((a, b) => a.name.localeCompare(b.name))", "`${n.toLocaleString()}`", "new Intl.NumberFormat('en').format(n)", "new Intl.DateTimeFormat('en-CA', { timeZone }).format(d)", 'return w.axis.dayIndex(format.format(ms))']
    for (const line of planted) expect(LOCALE_SENSITIVE.some(([, pattern]) => pattern.test(line)), line).toBe(true)
    expect(LOCALE_SENSITIVE.some(([, pattern]) => pattern.test('for (const p of dtf.formatToParts(new Date(utcMs)))'))).toBe(false)
  })
})
