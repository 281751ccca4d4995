import type { OperationInfo } from '../../../../openapi/index.ts'
import { safeJson } from '../../session.ts'
import { describeRequest, graded, notExercised } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'

const LEGACY = ['gmv_ranges', 'live_gmv']
const AUTOMATION_WRITES = new Set(['createAutomation', 'updateAutomation'])

/** The paths (`outreach_filters.gmv_ranges`) of legacy keys anywhere in a value. */
function legacyPaths(value: unknown, at = ''): string[] {
  if (!value || typeof value !== 'object') return []
  return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) => {
    const path = at ? `${at}.${key}` : key
    return [...(LEGACY.includes(key) && !Array.isArray(value) ? [path] : []), ...legacyPaths(inner, path)]
  })
}

/** An automation body without its legacy filter keys (so other rules judge the rest). */
export function withoutLegacyKeys(op: OperationInfo, input: Record<string, any>): Record<string, any> {
  if (!AUTOMATION_WRITES.has(op.operationId) || !input.outreach_filters || typeof input.outreach_filters !== 'object') return input
  const filters = { ...input.outreach_filters }
  for (const key of LEGACY) delete filters[key]
  return { ...input, outreach_filters: filters }
}

export const noLegacyKeys: ClientRule = {
  id: 'outreach.no-legacy-keys',
  title: 'The legacy gmv_ranges and live_gmv keys are never sent on automations',
  spec: 'Outreach automations (outreach_filters: legacy keys must not be sent); Versioning',
  level: 'MUST',
  quote: ['The legacy `gmv_ranges` and `live_gmv` bucket arrays exist on old automations and must not be sent.'],
  scope: 'automation creates and updates',
  situations: [],
  appliesTo: (r) => AUTOMATION_WRITES.has(r.op.operationId),
  grade({ requests }) {
    const writes = requests.filter((r) => AUTOMATION_WRITES.has(r.op.operationId))
    if (!writes.length) return notExercised('the client created or updated no automation')
    const failures: ClientFailure[] = writes.flatMap((r) => {
      const paths = legacyPaths(safeJson(r.bodyText))
      return paths.length ? [{ message: `${describeRequest(r)} sends ${paths.join(', ')}`, expected: 'no gmv_ranges or live_gmv key', received: paths.join(', '), requests: [r.seq] }] : []
    })
    return graded(failures, writes.map((r) => r.seq))
  },
}
