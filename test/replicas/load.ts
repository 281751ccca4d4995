/**
 * One load process of the replica tests: reads a job on stdin, sends its requests all at once (or one
 * after another, `sequential`), round robin over the replicas' URLs, and prints the replies (status,
 * body, Retry-After, which replica answered when a balancer says so in `x-shoptwin-replica`, the trace
 * id) as JSON. With a `label`, each request carries `x-load: <label>-<process>-<n>`, what it is in the
 * twin's journal.
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
  sequential?: boolean
  label?: string
}

const job = JSON.parse(await text(process.stdin)) as Job
const send = async (i: number) => {
  const url = job.urls[(i + job.offset) % job.urls.length]!
  const label: Record<string, string> = job.label === undefined ? {} : { 'x-load': `${job.label}-${job.offset}-${i}` }
  const response = await fetch(`${url}${job.path}`, {
    method: job.method,
    headers: { 'content-type': 'application/json', 'x-api-key': job.apiKey, 'x-shop-id': job.shop, ...job.headers, ...label },
    ...(job.body === undefined ? {} : { body: JSON.stringify(job.body) }),
  })
  return { status: response.status, text: await response.text(), retryAfter: response.headers.get('retry-after'), replica: response.headers.get('x-shoptwin-replica'), trace: response.headers.get('x-shoptwin-trace'), ...label }
}
const replies = []
if (job.sequential) for (let i = 0; i < job.count; i++) replies.push(await send(i))
else replies.push(...(await Promise.all(Array.from({ length: job.count }, (_, i) => send(i)))))
process.stdout.write(JSON.stringify(replies))
