/**
 * The ceiling of `npm run bench`: node:http answering every request with a pre-serialised JSON body
 * of the size shoptwin answers that path with (sizes from the JSON file named on the command line).
 */
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'

const [portArg, host = '127.0.0.1', sizeFile] = process.argv.slice(2)
const sizes: Record<string, number> = sizeFile ? JSON.parse(readFileSync(sizeFile, 'utf8')) : {}

function bodyOfSize(size: number): Buffer {
  const prefix = '{"data":"'
  const suffix = '"}'
  return Buffer.from(prefix + 'x'.repeat(Math.max(0, size - prefix.length - suffix.length)) + suffix)
}

const bodies = new Map(Object.entries(sizes).map(([path, size]) => [path, bodyOfSize(size)]))
const fallback = bodyOfSize(64)

const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    const body = bodies.get((req.url ?? '/').split('?')[0]!) ?? fallback
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
    res.end(body)
  })
})
server.listen(Number(portArg), host)
process.on('SIGTERM', () => server.close(() => process.exit(0)))
