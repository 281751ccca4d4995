/** The contract's operation for a method and path, as the service routes it (path parameters in braces). */
import type { Contract, OperationInfo } from '../openapi/index.ts'

export function createRouter(contract: Contract): (method: string, pathname: string) => OperationInfo | undefined {
  /** By method, then path: no key string built per request. */
  const exact = new Map<string, Map<string, OperationInfo>>()
  const patterns: Array<{ method: string; regex: RegExp; op: OperationInfo }> = []
  for (const op of contract.operations) {
    if (op.path.includes('{')) {
      const source = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')
      patterns.push({ method: op.method, regex: new RegExp(`^${source}/?$`), op })
    } else {
      let byPath = exact.get(op.method)
      if (!byPath) exact.set(op.method, (byPath = new Map()))
      byPath.set(op.path, op)
    }
  }
  return (method, pathname) => {
    const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname
    return exact.get(method)?.get(trimmed) ?? patterns.find((p) => p.method === method && p.regex.test(pathname))?.op
  }
}
