/**
 * One load process of the replica tests: reads a job on stdin, sends its requests all at once, round
 * robin over the replicas' URLs, and prints the replies (status, body, Retry-After, and which replica
 * answered when a balancer says so in `x-shoptwin-replica`) as JSON.
 */
import { text } from 'node:stream/consumers'

interface Job {
  urls: string[]
  method: string
  path: string
  shop: string
  apiKey: string
  body?: unknown
  headers?: Record<string, string>
  count: number
  offset: number
}

const job = JSON.parse(await text(process.stdin)) as Job
const replies = await Promise.all(
  Array.from({ length: job.count }, async (_, i) => {
    const url = job.urls[(i + job.offset) % job.urls.length]!
    const response = await fetch(`${url}${job.path}`, {
      method: job.method,
      headers: { 'content-type': 'application/json', 'x-api-key': job.apiKey, 'x-shop-id': job.shop, ...job.headers },
      ...(job.body === undefined ? {} : { body: JSON.stringify(job.body) }),
    })
    return { status: response.status, text: await response.text(), retryAfter: response.headers.get('retry-after'), replica: response.headers.get('x-shoptwin-replica') }
  }),
)
process.stdout.write(JSON.stringify(replies))
