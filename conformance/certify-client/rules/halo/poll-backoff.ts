import { describeRequest, graded, notExercised } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'

/** Inferred: the spec says later calls return ok once built; polls under a second apart are hammering. */
export const MIN_POLL_MS = 1000

export const pollBackoff: ClientRule = {
  id: 'halo.poll-backoff',
  title: 'A refreshing halo report is polled with backoff: at least a second apart, intervals that never shrink and grow over three or more polls',
  spec: 'States and transitions: Halo platform block refreshing; Limits: request rate (inferred: polling etiquette)',
  level: 'SHOULD',
  quote: ['No snapshot exists for the store: the first report call starts a refresh and returns this status; later calls return `ok` once built.'],
  inferred: 'the spec says later calls return ok once built and gives no polling interval: a second between polls, growing over three or more, is ours',
  scope: 'halo report reads',
  situations: ['a refreshing halo report'],
  appliesTo: (r) => r.op.path === '/halo-effect',
  grade({ requests }) {
    const polls = requests.filter((r) => r.op.path === '/halo-effect')
    const failures: ClientFailure[] = []
    const evidence: number[] = []
    let exercised = false
    for (const shop of new Set(polls.map((r) => r.shopId))) {
      const list = polls.filter((r) => r.shopId === shop)
      let run: number[] = []
      const judge = () => {
        if (run.length >= 2) {
          const worst = Math.min(...run)
          if (worst < MIN_POLL_MS) failures.push({ message: `halo report polled ${worst} ms after a refreshing answer`, expected: `at least ${MIN_POLL_MS} ms between polls`, received: `intervals ${run.join(', ')} ms`, requests: [...evidence] })
          else if (run.some((d, i) => i > 0 && d < run[i - 1]!) || (run.length >= 3 && run[run.length - 1]! <= run[0]!)) failures.push({ message: 'halo report polled without backoff', expected: 'intervals that never shrink and grow over three or more polls', received: `intervals ${run.join(', ')} ms`, requests: [...evidence] })
        } else if (run.length === 1 && run[0]! < MIN_POLL_MS) failures.push({ message: `halo report polled ${run[0]} ms after a refreshing answer`, expected: `at least ${MIN_POLL_MS} ms`, received: `${run[0]} ms`, requests: [...evidence] })
        run = []
      }
      for (let i = 0; i + 1 < list.length; i++) {
        if (list[i]!.note !== 'refreshing') {
          judge()
          continue
        }
        exercised = true
        evidence.push(list[i]!.seq, list[i + 1]!.seq)
        run.push(list[i + 1]!.atMs - list[i]!.atMs)
      }
      judge()
    }
    if (!exercised) return notExercised(polls.some((r) => r.note === 'refreshing') ? 'a refreshing halo report was never polled again' : 'the client never saw a refreshing halo report')
    return graded(failures.map((f) => ({ ...f, message: `${f.message} (${f.requests.length} requests, from ${describeRequest(polls.find((r) => r.seq === f.requests[0])!)})` })), evidence)
  },
}
