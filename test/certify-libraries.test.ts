/**
 * The README's table of clients built on popular HTTP libraries (ky, got, p-retry around fetch,
 * openapi-fetch with a retry middleware) is what bench/certify-libraries.ts prints: the libraries
 * are graded again here, each against its own twin, so the table cannot drift from what the code does.
 */
import { describe, expect, it } from 'vitest'
import { gradeLibraries, libraryTable, readmeTable } from '../bench/certify-libraries.ts'
import { LIBRARY_CLIENTS } from '../bench/library-clients.ts'

describe('README: clients on popular HTTP libraries, graded', () => {
  it('the table in README.md equals what npm run certify:libraries prints (regenerate with -- --write)', { timeout: 240_000 }, async () => {
    const grades = await gradeLibraries()
    const printed = libraryTable(grades)
    expect(readmeTable()).toBe(printed)
    // Every library at its defaults and at settings for idempotent POSTs, each graded.
    expect(printed.split('\n').slice(2)).toHaveLength(LIBRARY_CLIENTS.length)
    const libraries = new Set(LIBRARY_CLIENTS.map((c) => c.library))
    expect([...libraries]).toEqual(['ky', 'got', 'p-retry (around fetch)', 'openapi-fetch + retry middleware'])
    for (const library of libraries) expect(LIBRARY_CLIENTS.filter((c) => c.library === library).length).toBeGreaterThanOrEqual(2)
    // ratelimit.retry-429 fails exactly where the settings leave the 429's method unretried (every call with a shop is a POST, reads included), and a row's settings say so.
    for (const { client, report } of grades) {
      const outcome = report.outcomes.find((o) => o.id === 'ratelimit.retry-429')!
      const first429 = report.requests.find((r) => r.status === 429)!
      const retried = client.retries429On.includes(first429.method)
      expect([client.settings, outcome.status]).toEqual([client.settings, retried ? 'pass' : 'fail'])
      if (!retried && /429/.test(client.settings)) expect(client.settings).toMatch(/not POST/)
    }
  })
})
