/**
 * Enterprise endpoints (spec: What the service does: "Enterprise endpoints (cross-shop market
 * intelligence on brands, products and creators) need a separate plan; a standard key calling them
 * gets an authorization error"; "Every Enterprise endpoint takes a `region` field: exactly one of ...").
 * Paths, bodies and responses are not shown: the deployment names its paths, and this server has
 * no market data, so each answers the region check and an empty page.
 */
import { apiError } from '../errors.ts'
import type { Define } from '../index.ts'

const REGIONS = ['us', 'uk', 'mx', 'es', 'de', 'ie', 'it', 'fr', 'nl', 'pt', 'gr', 'be', 'at', 'pl', 'hu', 'cz', 'br', 'jp']

export function enterpriseRoutes(define: Define, paths: readonly string[]): void {
  for (const path of paths) {
    define('POST', path, { shop: true, enterprise: true }, (c) => {
      const region = c.get('body').region
      if (typeof region !== 'string' || !REGIONS.includes(region)) throw apiError(400, `region must be exactly one of ${REGIONS.join(', ')}`)
      return c.json({ data: { results: [], total_count: 0, region } })
    })
  }
}
