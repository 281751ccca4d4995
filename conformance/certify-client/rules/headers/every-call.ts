import { describeRequest, graded, notExercised } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'

const isJson = (contentType: string | null) => /^application\/(.+\+)?json\b/i.test((contentType ?? '').trim())

export const everyCall: ClientRule = {
  id: 'headers.every-call',
  title: 'Every request carries x-api-key and x-shop-id (only the key on GET /account/shops) and a body is sent as application/json',
  spec: 'Endpoints: Conventions 1; Authentication 1-2',
  level: 'MUST',
  quote: ['Every request sends `Content-Type: application/json`, `x-api-key` and `x-shop-id` (see Authentication). `GET /account/shops` needs only the key.'],
  scope: 'every request',
  situations: [],
  appliesTo: () => true,
  grade({ requests }) {
    if (!requests.length) return notExercised('the client made no request')
    const failures: ClientFailure[] = []
    for (const r of requests) {
      const missing = [
        ...(r.op.auth !== 'none' && r.keyId === null ? ['x-api-key'] : []),
        ...(r.op.auth === 'key+shop' && !r.shopId ? ['x-shop-id'] : []),
        ...(r.bodyText !== '' && !isJson(r.contentType) ? [`content-type: application/json (sent ${r.contentType ?? 'none'})`] : []),
      ]
      if (missing.length) failures.push({ message: `${describeRequest(r)} lacks ${missing.join(', ')}`, expected: 'x-api-key, x-shop-id and a JSON content type on a body', received: missing.join(', '), requests: [r.seq] })
    }
    return graded(failures, requests.map((r) => r.seq).slice(0, 5))
  },
}
