import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { checkDocument } from '../openapi/check.ts'
import { generateTypes } from '../openapi/build.ts'
import { renderDocument, renderDocumentJson } from '../openapi/render.ts'
import { indexOperations, loadDocument } from '../openapi/index.ts'

const doc = loadDocument()
const operations = indexOperations(doc)
const byRoute = new Map(operations.map((o) => [`${o.method} ${o.path}`, o]))

/**
 * Every endpoint the spec names, with the section it comes from. Paths the spec does not show
 * (tags, workflows, groups listing, Enterprise, halo product links) are our inferred ones.
 */
const specEndpoints: Array<[route: string, section: string]> = [
  ['GET /health', 'Endpoints whose shapes are incomplete or absent'],
  ['GET /account/shops', 'Account and shop'],
  ['GET /shop/sps', 'Account and shop'],
  ['POST /shop/products', 'Account and shop'],
  ['POST /shop/skus', 'Account and shop'],
  ['GET /idempotency/{key}', 'Idempotency'],
  ['POST /shop/stats', 'POST /shop/stats'],
  ['POST /timeseries/products', 'Timeseries searches'],
  ['POST /timeseries/skus', 'Timeseries searches'],
  ['POST /timeseries/affiliates', 'Timeseries searches'],
  ['POST /timeseries/videos', 'Timeseries searches'],
  ['POST /timeseries/slideshows', 'Timeseries searches'],
  ['POST /affiliate/crm/list', 'CRM, videos, slideshows, LIVEs'],
  ['POST /affiliate/videos/list', 'CRM, videos, slideshows, LIVEs'],
  ['POST /affiliate/slideshows/list', 'CRM, videos, slideshows, LIVEs'],
  ['POST /affiliate/lives/list', 'CRM, videos, slideshows, LIVEs'],
  ['POST /spark/list', 'Sponsored-video codes'],
  ['GET /spark/list', 'Sponsored-video codes'],
  ['POST /ads/campaigns', 'Sales-max ads'],
  ['POST /v1/ads/campaigns', 'Versioning'],
  ['POST /ads/creatives', 'Sales-max ads'],
  ['POST /v1/ads/creatives', 'Versioning'],
  ['POST /ads/excluded-creatives', 'Sales-max ads'],
  ['GET /ads/excluded-creatives', 'Sales-max ads'],
  ['POST /v1/ads/excluded-creatives', 'Versioning'],
  ['POST /ads/boosted-creatives', 'Sales-max ads'],
  ['GET /ads/boosted-creatives', 'Sales-max ads'],
  ['POST /v1/ads/boosted-creatives', 'Versioning'],
  ['POST /social/campaigns', 'Social-network partnership ads'],
  ['POST /social/adsets', 'Social-network partnership ads'],
  ['POST /social/ads', 'Social-network partnership ads'],
  ['POST /social/programs', 'Social-network partnership ads'],
  ['POST /social/programs/creators', 'Social-network partnership ads'],
  ['POST /halo-effect', 'Off-platform sales correlation'],
  ['GET /halo-effect', 'Off-platform sales correlation'],
  ['POST /affiliate/samples/funnel', 'Samples'],
  ['POST /affiliate/samples/list', 'Samples'],
  ['POST /affiliate/samples/refundable/list', 'Samples'],
  ['POST /affiliate/samples/approve', 'Samples'],
  ['POST /affiliate/samples/reject', 'Samples'],
  ['POST /affiliate/samples/ignore', 'Samples'],
  ['POST /affiliate/samples/unignore', 'Samples'],
  ['POST /affiliate/message/dm', 'Samples'],
  ['POST /dashboards/list', 'Dashboards'],
  ['GET /dashboards/list', 'Dashboards'],
  ['POST /dashboards/get', 'Dashboards'],
  ['GET /dashboards/get', 'Dashboards'],
  ['POST /dashboards/data', 'Dashboards'],
  ['POST /dashboards/create', 'Dashboards'],
  ['POST /dashboards/update', 'Dashboards'],
  ['DELETE /dashboards/delete', 'Dashboards'],
  ['POST /automations/create', 'Outreach automations'],
  ['POST /automations/update', 'Outreach automations'],
  ['DELETE /automations/delete', 'Outreach automations'],
  ['POST /emails/campaigns/create', 'Endpoints whose shapes are incomplete or absent'],
  ['POST /emails/campaigns/update', 'Endpoints whose shapes are incomplete or absent'],
  ['DELETE /emails/campaigns/delete', 'Endpoints whose shapes are incomplete or absent'],
  ['POST /emails/senders/create-custom', 'Endpoints whose shapes are incomplete or absent'],
  ['POST /groups/create', 'Endpoints whose shapes are incomplete or absent'],
  ['DELETE /groups/delete', 'Endpoints whose shapes are incomplete or absent'],
  ['POST /lists/create', 'Endpoints whose shapes are incomplete or absent'],
  ['POST /lists/merge', 'Endpoints whose shapes are incomplete or absent'],
  ['DELETE /lists/delete', 'Endpoints whose shapes are incomplete or absent'],
  ['POST /creator-briefs/create', 'Endpoints whose shapes are incomplete or absent'],
  ['POST /creator-briefs/update', 'Endpoints whose shapes are incomplete or absent'],
  ['DELETE /creator-briefs/delete', 'Endpoints whose shapes are incomplete or absent'],
  ['POST /community/campaigns/create', 'Endpoints whose shapes are incomplete or absent'],
  ['POST /community/campaigns/update', 'Endpoints whose shapes are incomplete or absent'],
  ['DELETE /community/campaigns/delete', 'Endpoints whose shapes are incomplete or absent'],
  ['POST /community/payouts/authorize', 'Endpoints whose shapes are incomplete or absent'],
]

/** The spec's list of write endpoints that accept Idempotency-Key (spec: Idempotency). */
const idempotentRoutes = [
  'POST /automations/create', 'POST /automations/update', 'DELETE /automations/delete',
  'POST /emails/campaigns/create', 'POST /emails/campaigns/update', 'DELETE /emails/campaigns/delete',
  'POST /emails/senders/create-custom', 'POST /groups/create', 'DELETE /groups/delete',
  'POST /lists/create', 'POST /lists/merge', 'DELETE /lists/delete',
  'POST /creator-briefs/create', 'POST /creator-briefs/update', 'DELETE /creator-briefs/delete',
  'POST /community/campaigns/create', 'POST /community/campaigns/update', 'DELETE /community/campaigns/delete',
  'POST /affiliate/samples/approve', 'POST /affiliate/samples/reject', 'POST /affiliate/samples/ignore',
  'POST /affiliate/samples/unignore', 'POST /affiliate/message/dm',
]

/** Areas whose paths the spec does not show: at least one inferred operation each. */
const inferredAreas: Array<[what: string, pattern: RegExp]> = [
  ['tags', /^\/tags\//],
  ['workflows (read, create, toggle, delete)', /^\/workflows\//],
  ['groups listing', /^\/groups\/list$/],
  ['Enterprise brands', /^\/enterprise\/brands/],
  ['Enterprise products', /^\/enterprise\/products/],
  ['Enterprise creators', /^\/enterprise\/creators/],
  ['halo product links', /^\/halo-effect\/.+/],
]

describe('contract: openapi/openapi.yaml', () => {
  it('is OpenAPI 3.1.0, version 1.0.0 (spec: Versioning)', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.version).toBe('1.0.0')
  })

  it('is valid OpenAPI 3.1 for an independent validator, and every schema compiles with ajv 2020-12', async () => {
    expect(await checkDocument(doc)).toEqual([])
  })

  it('is the current output of openapi/src (run npm run build:openapi after editing the sources)', () => {
    expect(readFileSync(new URL('../openapi/openapi.yaml', import.meta.url), 'utf8')).toBe(renderDocument())
  })

  it('has a JSON twin (openapi/openapi.json, what the run-time loader imports) equal to the YAML', () => {
    expect(readFileSync(new URL('../openapi/openapi.json', import.meta.url), 'utf8')).toBe(renderDocumentJson())
  })

  it('reads the same under YAML 1.1 (PyYAML, js-yaml, Dredd) as under 1.2: no example date turns into a timestamp', () => {
    // Found by Dredd ("Interpreting YAML !!timestamp as string"): unquoted, 2026-03-10 is a !!timestamp in YAML 1.1.
    const text = readFileSync(new URL('../openapi/openapi.yaml', import.meta.url), 'utf8')
    const json = JSON.parse(readFileSync(new URL('../openapi/openapi.json', import.meta.url), 'utf8'))
    const read = (version: '1.1' | '1.2') => parseYaml(text, { version, maxAliasCount: -1, ...(version === '1.1' ? { customTags: ['timestamp' as const] } : {}) })
    const differing: string[] = []
    const walk = (want: unknown, got: unknown, path: string) => {
      if (want && typeof want === 'object') for (const key of Object.keys(want)) walk((want as Record<string, unknown>)[key], (got as Record<string, unknown> | undefined)?.[key], `${path}/${key}`)
      else if (want !== got) differing.push(`${path}: ${JSON.stringify(want)} read as ${got instanceof Date ? `a Date (${got.toISOString()})` : JSON.stringify(got)}`)
    }
    walk(json, read('1.1'), '')
    expect(differing.slice(0, 10), `${differing.length} values read otherwise under YAML 1.1`).toEqual([])
    expect(read('1.2')).toEqual(json)
  })

  it('has TypeScript types generated from the committed document (openapi/types.ts is current)', () => {
    const committed = readFileSync(new URL('../openapi/types.ts', import.meta.url), 'utf8')
    expect(committed).toBe(generateTypes(new URL('../openapi/openapi.yaml', import.meta.url).pathname))
  })

  it('gives every operation a unique operationId and an x-permission equal to its own METHOD path (spec: Authentication 3)', () => {
    const ids = operations.map((o) => o.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    for (const op of operations) expect(op.permission, op.operationId).toBe(`${op.method} ${op.path}`)
  })

  it.each(specEndpoints)('describes %s (spec: %s)', (route) => {
    expect(byRoute.has(route), `${route} is missing from the contract`).toBe(true)
  })

  it.each(inferredAreas)('describes the %s, marked x-inferred, although the spec does not show the path', (_what, pattern) => {
    const ops = operations.filter((o) => pattern.test(o.path))
    expect(ops.length).toBeGreaterThan(0)
    for (const op of ops) expect(op.inferred, op.operationId).toBe(true)
  })

  it('puts the Idempotency-Key header on exactly the write endpoints the spec lists (spec: Idempotency)', () => {
    const withHeader = operations.filter((o) => o.idempotent).map((o) => `${o.method} ${o.path}`).sort()
    expect(withHeader).toEqual([...idempotentRoutes].sort())
  })

  it('needs no key on GET /health, only x-api-key on GET /account/shops, and both headers elsewhere (spec: Authentication 1-2)', () => {
    for (const op of operations) {
      // GET /account/activity (inferred, issue 17) reads the account's log like /account/shops: key only.
      const expected = op.path === '/health' ? 'none' : op.path === '/account/shops' || op.path === '/account/activity' ? 'key' : 'key+shop'
      expect(op.auth, op.operationId).toBe(expected)
    }
  })

  it('documents the {error} body on every error status of every operation (spec: Errors)', () => {
    for (const op of operations) {
      for (const status of op.statuses.filter((s) => s >= 400)) {
        const ref = (op.operation.responses[String(status)] as { $ref?: string }).$ref
        expect(ref, `${op.operationId} ${status}`).toMatch(/^#\/components\/responses\//)
      }
      if (op.auth !== 'none') expect(op.statuses, op.operationId).toEqual(expect.arrayContaining([401, 403, 429]))
    }
  })

  it('refuses Enterprise operations to standard keys and gates the ads endpoints on an active paid plan (spec: Authentication 4-5)', () => {
    const enterprise = operations.filter((o) => o.path.startsWith('/enterprise/'))
    expect(enterprise.length).toBeGreaterThanOrEqual(3)
    for (const op of enterprise) expect(op.enterprise, op.operationId).toBe(true)
    for (const op of operations.filter((o) => /^(\/v1)?\/ads\//.test(o.path))) expect(op.planGate, op.operationId).toBe('active-paid')
  })

  it('marks the /v1 ads routes and the GET forms as aliases of their canonical operation (spec: Versioning, Conventions 4)', () => {
    for (const op of operations.filter((o) => o.path.startsWith('/v1/'))) {
      const canonical = byRoute.get(`${op.method} ${op.path.slice(3)}`)!
      expect(op.aliasOf, op.operationId).toBe(canonical.aliasOf ?? canonical.operationId)
    }
    for (const op of operations.filter((o) => o.method === 'GET' && o.aliasOf)) {
      const post = byRoute.get(`POST ${op.path}`)!
      expect(op.aliasOf, op.operationId).toBe(post.aliasOf ?? post.operationId)
    }
  })

  it('makes every enumerated value set of the spec an enum (regions, delivery statuses with both spellings, sample statuses...)', () => {
    const schemas = doc.components.schemas as Record<string, { enum?: string[] }>
    expect(schemas.Region.enum).toHaveLength(18)
    expect(schemas.DeliveryStatus.enum).toEqual(expect.arrayContaining(['NOT_DELIVERYING', 'NOT_DELIVERING']))
    expect(schemas.SampleStatus.enum).toEqual(expect.arrayContaining(['To Review', 'Ready to Ship', 'Shipped', 'Content Pending', 'Overdue', 'Rejected', 'Delivered', 'Content Posted', 'Pending', 'Approved']))
  })
})
