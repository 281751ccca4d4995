/** Why no operation answered a request: the decision of a trace that matched nothing. */
import type { Contract } from '../../openapi/index.ts'
import type { TraceDecision } from './types.ts'

const matches = (pattern: string, path: string): boolean => {
  const a = pattern.split('/')
  const b = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/')
  return a.length === b.length && a.every((s, i) => s.startsWith('{') || s === b[i])
}

/** The operations at the path under other methods, or the paths that share its first segment. */
export function noOperation(contract: Contract, method: string, path: string): TraceDecision {
  const atPath = contract.operations.filter((op) => matches(op.path, path))
  if (atPath.length) {
    const methods = [...new Set(atPath.map((op) => op.method))]
    return {
      step: 'operation',
      outcome: 'none',
      spec: 'Endpoints',
      summary: `${path} is served for ${methods.join(', ')} only, not ${method}`,
      detail: { operations: atPath.map((op) => `${op.method} ${op.path} (${op.operationId})`) },
    }
  }
  const first = path.split('/')[1] ?? ''
  const near = first ? [...new Set(contract.operations.filter((op) => op.path.split('/')[1] === first).map((op) => `${op.method} ${op.path}`))].slice(0, 8) : []
  return {
    step: 'operation',
    outcome: 'none',
    spec: 'Endpoints',
    summary: `no operation of the contract has the path ${path}${near.length ? ` (under /${first}: ${near.length} operation${near.length === 1 ? '' : 's'})` : ''}`,
    ...(near.length ? { detail: { near } } : {}),
  }
}
