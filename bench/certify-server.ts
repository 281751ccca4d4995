/**
 * `node bench/certify-server.ts PORT HOST on|off`: the twin as `shoptwin serve` runs it (default
 * world, response cache on, rate limit off), with a client-certification session recording every
 * request (`on`) or without (`off`). The session's profile produces nothing, so the difference is the
 * recording's cost alone.
 */
import { createServer } from '../mock/server.ts'
import { PROFILES } from '../conformance/certify-client/profile.ts'
import { startCertification } from '../conformance/certify-client/session.ts'

const [port = '0', host = '127.0.0.1', mode = 'off'] = process.argv.slice(2)
const mock = createServer({ stateOptions: { seed: 42, scale: 'default', rateLimit: false, responseCache: true } })
if (mode === 'on') {
  const quiet = { ...PROFILES.standard, name: 'bench', writeFaults: [], inFlight409: 0, stale412: 0, haloRefreshMs: 0, deepListingRows: 0, burst429: { ...PROFILES.standard.burst429, times: 0 } }
  await startCertification(mock.state, quiet, 42)
}
await mock.listen(Number(port), host)
process.on('SIGTERM', () => void mock.close().then(() => process.exit(0)))
