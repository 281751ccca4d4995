/**
 * The stateful phase of the contract fuzz (issue 24): OpenAPI links (3.1, 4.8.20) followed as a
 * stateful tool follows them. A source operation's answer (and its request) fill the linked
 * operation's parameters and body through runtime expressions (`$response.body#/data/id`,
 * `$request.body#/tag`, `$request.header.Idempotency-Key`); the rest of the linked request is
 * generated from the contract as usual.
 */
import type { OpenApiDocument } from '../../openapi/index.ts'
import type { GeneratedRequest } from './generate.ts'

export interface ContractLink {
  /** The operation whose success answer carries the link. */
  source: string
  name: string
  operationId: string
  parameters: Record<string, unknown>
  requestBody?: unknown
}

/** Every link of the contract's success responses, in document order. */
export function contractLinks(doc: OpenApiDocument): ContractLink[] {
  const out: ContractLink[] = []
  for (const item of Object.values(doc.paths) as Array<Record<string, { operationId?: string; responses?: Record<string, { links?: Record<string, { operationId: string; parameters?: Record<string, unknown>; requestBody?: unknown }> }> }>>) {
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object' || !op.operationId || !op.responses) continue
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^2/.test(status) || !response.links) continue
        for (const [name, link] of Object.entries(response.links)) out.push({ source: op.operationId, name, operationId: link.operationId, parameters: link.parameters ?? {}, ...(link.requestBody !== undefined ? { requestBody: link.requestBody } : {}) })
      }
    }
  }
  return out
}

/** What a runtime expression reads: the source's request and answer. */
export interface LinkSource {
  requestHeaders: Record<string, string>
  requestBody: unknown
  requestQuery: URLSearchParams
  responseHeaders: Headers
  responseBody: unknown
}

const MISSING = Symbol('missing')

/** RFC 6901 JSON pointer. */
function pointer(value: unknown, path: string): unknown {
  let node = value
  for (const raw of path.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return MISSING
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

/** One runtime expression (OpenAPI 3.1, 4.8.20.4), or a constant. */
function evaluate(expression: unknown, source: LinkSource): unknown {
  if (typeof expression !== 'string' || !expression.startsWith('$')) return expression
  const body = /^\$(request|response)\.body(?:#(.*))?$/.exec(expression)
  if (body) return pointer(body[1] === 'request' ? source.requestBody : source.responseBody, body[2] ?? '')
  const header = /^\$(request|response)\.header\.(.+)$/.exec(expression)
  if (header) {
    const name = header[2]!.toLowerCase()
    const value = header[1] === 'request' ? Object.entries(source.requestHeaders).find(([k]) => k.toLowerCase() === name)?.[1] : source.responseHeaders.get(name)
    return value ?? MISSING
  }
  const query = /^\$request\.query\.(.+)$/.exec(expression)
  if (query) return source.requestQuery.get(query[1]!) ?? MISSING
  return MISSING
}

/** A link's body template with its expressions evaluated; MISSING when one of them names nothing. */
function evaluateTemplate(template: unknown, source: LinkSource): unknown {
  if (Array.isArray(template)) {
    const items = template.map((t) => evaluateTemplate(t, source))
    return items.includes(MISSING) ? MISSING : items
  }
  if (template !== null && typeof template === 'object') {
    const entries = Object.entries(template).map(([k, v]) => [k, evaluateTemplate(v, source)] as const)
    return entries.some(([, v]) => v === MISSING) ? MISSING : Object.fromEntries(entries)
  }
  return evaluate(template, source)
}

/** `target` with `values` laid over it (objects merged, everything else replaced). */
function overlay(target: unknown, values: unknown): unknown {
  if (values === null || typeof values !== 'object' || Array.isArray(values) || target === null || typeof target !== 'object' || Array.isArray(target)) return values
  const out: Record<string, unknown> = { ...(target as Record<string, unknown>) }
  for (const [k, v] of Object.entries(values)) out[k] = overlay(out[k], v)
  return out
}

export interface LinkedRequest {
  request: GeneratedRequest & { pathValues: Record<string, unknown> }
  /** The values the link filled (for the report and the not-found check). */
  filled: unknown[]
}

/**
 * The generated request of the link's target with the link's values laid over it, or undefined when
 * an expression names nothing in this answer (an empty list has no `/data/results/0`).
 */
export function applyLink(link: ContractLink, source: LinkSource, generated: GeneratedRequest & { pathValues: Record<string, unknown> }, targetPath: string, bodyMediaType?: string): LinkedRequest | undefined {
  const filled: unknown[] = []
  const query = new URLSearchParams(generated.query)
  const pathValues = { ...generated.pathValues }
  const headers = { ...generated.headers }
  for (const [where, expression] of Object.entries(link.parameters)) {
    const value = evaluate(expression, source)
    if (value === MISSING) return undefined
    filled.push(value)
    const [location, name] = where.includes('.') ? [where.slice(0, where.indexOf('.')), where.slice(where.indexOf('.') + 1)] : ['', where]
    if (location === 'query') query.set(name, String(value))
    else if (location === 'path') pathValues[name] = value
    else if (location === 'header') headers[name.toLowerCase()] = String(value)
    else if (name in pathValues) pathValues[name] = value
    else query.set(name, String(value))
  }
  let body = generated.body
  if (link.requestBody !== undefined) {
    const values = evaluateTemplate(link.requestBody, source)
    if (values === MISSING) return undefined
    const collect = (v: unknown): void => (v !== null && typeof v === 'object' ? Object.values(v).forEach(collect) : void filled.push(v))
    collect(values)
    let current: unknown = {}
    try {
      current = body === undefined ? {} : JSON.parse(body)
    } catch {
      current = {}
    }
    body = JSON.stringify(overlay(current, values))
    headers['content-type'] = bodyMediaType ?? 'application/json'
  }
  const path = targetPath.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathValues[name] ?? '')))
  return { request: { ...generated, path, pathValues, query: query.toString(), headers, ...(body !== undefined ? { body } : {}) }, filled }
}

/** Whether a link takes a value from its source's answer (`$response.body#/data/id`): it addresses what the answer named. */
export const readsAnswer = (link: ContractLink): boolean => /\$response\.body/.test(JSON.stringify([link.parameters, link.requestBody ?? null]))

/** A resource a client creates and deletes, as the contract's links describe it. */
export interface DeletableResource {
  /** The create: an operation whose success is 201. */
  create: string
  /** The create's link to the delete (a DELETE operation), fed with the id the create answered. */
  remove: ContractLink
  /**
   * Every link of the create that addresses the created resource by the value its answer gave: the
   * get, the update, the delete... (not another create that merely refers to it, such as an
   * automation to a group, nor the lookup of the create's Idempotency-Key).
   */
  addressed: ContractLink[]
}

/**
 * The resources the contract lets a client create and then delete (Schemathesis's use_after_free and
 * ensure_resource_availability follow the same links): a 201 source with a link, fed from its answer,
 * to a DELETE operation.
 */
export function deletableResources(links: readonly ContractLink[], operations: ReadonlyMap<string, { method: string; successStatus?: number }>): DeletableResource[] {
  const creates = [...new Set(links.map((l) => l.source))].filter((id) => operations.get(id)?.successStatus === 201)
  return creates.flatMap((create) => {
    const addressed = links.filter((l) => l.source === create && readsAnswer(l) && operations.get(l.operationId)?.successStatus !== 201)
    const remove = addressed.find((l) => operations.get(l.operationId)?.method === 'DELETE')
    return remove ? [{ create, remove, addressed }] : []
  })
}
