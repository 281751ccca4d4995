/**
 * One killing mutation per rule: a change to the mock's answers (through the proxy of harness.ts)
 * that breaks exactly the behaviour the rule checks. test/conformance-mutations.test.ts runs each
 * rule against its mutant and checks that the rule fails and that the others do not; a rule
 * without an entry here fails that test.
 */
import { jsonAnswer, rewriteJson, type Mutation, type ProxiedRequest, type ProxiedResponse } from './harness.ts'

export interface KillingMutation {
  /** What the mutant does wrong, in a sentence. */
  breaks: string
  mutation: Mutation
  /** Other rules that cannot help failing with this mutant (the overlap is inherent), with why. */
  alsoFails?: Record<string, string>
  /** The mutant needs the mock's rate limit on. */
  rateLimit?: boolean
}

const errorOf = (response: ProxiedResponse): string | undefined => {
  try {
    return JSON.parse(response.body).error
  } catch {
    return undefined
  }
}

/** Changes the message of an error answer with the given status and message. */
const changeMessage = (status: number, message: string, to: string): Mutation => async (_request, forward) => {
  const response = await forward()
  return response.status === status && errorOf(response) === message ? jsonAnswer(status, { error: to }) : response
}

/** Changes the status of matching answers, keeping the body. */
const changeStatus = (match: (r: ProxiedRequest) => boolean, from: number, to: number): Mutation => async (request, forward) => {
  const response = await forward()
  return match(request) && response.status === from ? { ...response, status: to } : response
}

const withoutHeader = (request: ProxiedRequest, name: string) => Object.fromEntries(Object.entries(request.headers).filter(([k]) => k !== name))

export const killingMutations: Record<string, KillingMutation> = {
  'auth.ads-plan-gate': {
    breaks: 'the ads plan gate answers 403 with another message',
    mutation: changeMessage(403, 'This shop is not on an active paid plan', 'Forbidden'),
  },
  'auth.enterprise-allowed': {
    breaks: 'Enterprise endpoints refuse the Enterprise key for regions other than us',
    mutation: async (request, forward) =>
      request.path.startsWith('/enterprise/') && request.headers['x-api-key'] === 'demo-enterprise-key' && request.json?.region !== 'us' ? jsonAnswer(403, { error: 'Forbidden' }) : forward(),
  },
  'auth.enterprise-refused': {
    breaks: 'Enterprise endpoints serve a standard key',
    mutation: async (request, forward) => (request.path.startsWith('/enterprise/') && request.headers['x-api-key'] === 'demo-key' ? forward({ headers: { ...request.headers, 'x-api-key': 'demo-enterprise-key' } }) : forward()),
  },
  'auth.invalid-shop-id': {
    breaks: 'a malformed shop id gets another message',
    mutation: changeMessage(400, 'Invalid shop_id', 'Bad shop id'),
  },
  'auth.key-only-routes': {
    breaks: 'GET /health asks for a key',
    mutation: async (request, forward) => (request.path === '/health' && !request.headers['x-api-key'] ? jsonAnswer(401, { error: 'Missing API key' }) : forward()),
    alsoFails: { 'contract.reads-answer': 'the sweep calls GET /health without a key too' },
  },
  'auth.limited-key-scope': {
    breaks: 'the limited key is served outside its routes',
    mutation: async (request, forward) => (request.headers['x-api-key'] === 'demo-limited-key' && request.path === '/shop/stats' ? forward({ headers: { ...request.headers, 'x-api-key': 'demo-key' } }) : forward()),
  },
  'auth.missing-key': {
    breaks: 'a missing key gets 403 instead of 401',
    mutation: async (request, forward) => {
      const response = await forward()
      return !request.headers['x-api-key'] && response.status === 401 ? { ...response, status: 403 } : response
    },
  },
  'auth.missing-shop-header': {
    breaks: 'a missing shop header gets another message',
    mutation: changeMessage(400, 'Missing X-Shop-Id header', 'Missing shop'),
  },
  'auth.shop-not-owned': {
    breaks: 'a foreign shop gets 403 with another message',
    mutation: changeMessage(403, 'Shop not found or not owned by user', 'Forbidden'),
  },
  'auth.unknown-key': {
    breaks: 'an unknown key gets 403 instead of 401',
    mutation: async (request, forward) => {
      const response = await forward()
      return request.headers['x-api-key'] === 'conformance-unknown-key-0000' && response.status === 401 ? { ...response, status: 403 } : response
    },
  },
  'idempotency.concurrent-409': (() => {
    const inFlight = new Set<string>()
    return {
      breaks: 'a request whose key is in flight acts again instead of getting 409',
      mutation: async (request, forward) => {
        const key = request.headers['idempotency-key']
        if (!key || request.path !== '/automations/create') return forward()
        if (inFlight.has(key)) return forward({ headers: withoutHeader(request, 'idempotency-key') })
        inFlight.add(key)
        try {
          // Hold the first request a little so that the concurrent ones find it in flight.
          await new Promise((resolve) => setTimeout(resolve, 100))
          return await forward()
        } finally {
          inFlight.delete(key)
        }
      },
    } satisfies KillingMutation
  })(),
  'idempotency.header-format': {
    breaks: 'a malformed Idempotency-Key is ignored instead of refused',
    mutation: async (request, forward) => {
      const key = request.headers['idempotency-key']
      return key !== undefined && !/^[A-Za-z0-9-]{1,128}$/.test(key) ? forward({ headers: withoutHeader(request, 'idempotency-key') }) : forward()
    },
  },
  'idempotency.key-format': {
    breaks: 'a malformed key on lookup gets 404 instead of 400',
    mutation: async (request, forward) => {
      const response = await forward()
      return request.path.startsWith('/idempotency/') && response.status === 400 ? jsonAnswer(404, { error: 'No stored response for that key' }) : response
    },
  },
  'idempotency.lookup-states': {
    breaks: 'the completed record reports another status than the original',
    mutation: rewriteJson((r, res) => r.path.startsWith('/idempotency/') && res.status === 200, (json) => {
      if (json.idempotency?.status === 'completed') json.idempotency.response_status = 200
      return json
    }),
  },
  'idempotency.no-second-effect': (() => {
    const first = new Map<string, ProxiedResponse>()
    return {
      breaks: 'a replay answers the stored response but acts again',
      // Only on the automations of that rule (titled conformance-second-effect-…): the concurrent
      // rule's simultaneous requests must not meet this mutant.
      mutation: async (request, forward) => {
        const key = request.headers['idempotency-key']
        if (!key || request.path !== '/automations/create' || !String(request.json?.title).startsWith('conformance-second-effect-')) return forward()
        const stored = first.get(key)
        if (stored) {
          await forward({ headers: withoutHeader(request, 'idempotency-key') })
          return stored
        }
        const response = await forward()
        first.set(key, response)
        return response
      },
    } satisfies KillingMutation
  })(),
  'idempotency.replay-identical': (() => {
    const seen = new Set<string>()
    return {
      breaks: 'a replay has the same data but not the same bytes',
      mutation: async (request, forward) => {
        const key = request.headers['idempotency-key']
        const response = await forward()
        if (!key || request.path !== '/automations/create' || !String(request.json?.title).startsWith('conformance-replay-')) return response
        if (!seen.has(key)) {
          seen.add(key)
          return response
        }
        return { ...response, body: JSON.stringify(JSON.parse(response.body), null, 1) }
      },
    } satisfies KillingMutation
  })(),
  'idempotency.shop-scoped': {
    breaks: 'idempotency lookups find keys of every shop',
    mutation: async (request, forward) => {
      const response = await forward()
      if (!request.path.startsWith('/idempotency/') || response.status !== 404) return response
      const shops = JSON.parse((await forward({ path: '/account/shops', method: 'GET', headers: withoutHeader(request, 'x-shop-id') })).body).data as Array<{ shop_id: string }>
      for (const shop of shops) {
        const found = await forward({ headers: { ...request.headers, 'x-shop-id': shop.shop_id } })
        if (found.status === 200) return found
      }
      return response
    },
  },
  'idempotency.unknown-key': {
    breaks: 'an unknown key gets 404 with another message',
    mutation: changeMessage(404, 'No stored response for that key', 'Not found'),
  },
  'dashboards.name-taken-409': {
    breaks: 'a taken board name gets 400 instead of 409',
    mutation: changeStatus((r) => r.path.startsWith('/dashboards/'), 409, 400),
  },
  'dashboards.stale-update-412': {
    breaks: 'a stale expected_updated_at is ignored',
    mutation: async (request, forward) => (request.path === '/dashboards/update' && request.json?.expected_updated_at ? forward({ json: { ...request.json, expected_updated_at: undefined } }) : forward()),
  },
  'paging.depth-cap': {
    breaks: 'the sample list serves pages past page_number x page_size 1000',
    mutation: async (request, forward) => {
      const { page_number: page, page_size: size } = request.json ?? {}
      return request.path === '/affiliate/samples/list' && page * size > 1000 ? forward({ json: { ...request.json, page_number: 1 } }) : forward()
    },
  },
  'paging.has-more-total-count': {
    breaks: 'the spark list counts (total_count 0) when include_total is false',
    mutation: rewriteJson((r, res) => r.path === '/spark/list' && r.json?.include_total === false && res.status === 200, (json) => {
      json.data.total_count = 0
      return json
    }),
  },
  'paging.just-count': {
    breaks: 'just_count answers carry rows besides total_count',
    mutation: rewriteJson((r, res) => r.json?.just_count === true && res.status === 200, (json) => {
      if (json.data && typeof json.data === 'object') json.data.results = []
      return json
    }),
  },
  'paging.page-size-limits': {
    breaks: 'the campaign list serves page_size 0 as its default 10 instead of clamping it to 1',
    mutation: rewriteJson((r, res) => r.path === '/ads/campaigns' && r.json?.page_size === 0 && res.status === 200, (json) => {
      json.data.page_size = 10
      return json
    }),
  },
  'sorting.order': {
    breaks: 'products sorted ascending come in descending order',
    mutation: async (request, forward) => (request.path === '/shop/products' && request.json?.sort_direction === 'asc' ? forward({ json: { ...request.json, sort_direction: 'desc' } }) : forward()),
  },
  'sorting.nulls-last': {
    breaks: 'campaigns sorted by name put a null first',
    mutation: rewriteJson((r, res) => r.path === '/ads/campaigns' && r.json?.sort_by === 'campaign_name' && res.status === 200, (json) => {
      const campaigns = json.data?.campaigns
      if (Array.isArray(campaigns) && campaigns.length >= 2) campaigns.unshift({ ...campaigns.pop(), campaign_name: null })
      return json
    }),
  },
  'dates.halo-range-max': {
    breaks: 'the halo report serves ranges over 366 days',
    mutation: async (request, forward) => {
      const range = request.json?.date_range
      if (request.path !== '/halo-effect' || !range?.from || !range?.to) return forward()
      const days = (Date.parse(range.to) - Date.parse(range.from)) / 86_400_000 + 1
      if (days <= 366) return forward()
      // Served for the asked range (the report says it covers all 367 days).
      const response = await forward({ json: { ...request.json, date_range: { from: new Date(Date.parse(range.to) - 300 * 86_400_000).toISOString().slice(0, 10), to: range.to } } })
      const json = JSON.parse(response.body)
      if (json.data) json.data.date_from = range.from
      return jsonAnswer(response.status, json)
    },
  },
  'dates.missing-range': {
    breaks: 'a missing date_range gets another message',
    mutation: changeMessage(400, 'Missing date_range (from/to)', 'date_range is required'),
  },
  'dates.slideshows-range-required': {
    breaks: 'the slideshow timeseries serves a request without date_range',
    mutation: async (request, forward) => {
      if (request.path !== '/timeseries/slideshows' || request.json?.search_params?.date_range) return forward()
      const to = new Date().toISOString().slice(0, 10)
      return forward({ json: { ...request.json, search_params: { ...request.json?.search_params, date_range: { from: '2026-01-01', to } } } })
    },
  },
  'dates.stats-grain-timezone': {
    breaks: 'shop stats serve an unknown grain as day',
    mutation: async (request, forward) => (request.path === '/shop/stats' && request.json?.grain === 'year' ? forward({ json: { ...request.json, grain: 'day' } }) : forward()),
  },
  'aliases.camel-case-keys': {
    breaks: 'camelCase keys of the creatives list are ignored',
    mutation: async (request, forward) => {
      if (request.path !== '/ads/creatives' || !request.json) return forward()
      const { pageSize: _p, sortBy: _s, sortDir: _d, ...rest } = request.json
      return forward({ json: rest })
    },
  },
  'aliases.get-equals-post': {
    breaks: 'GET /spark/list answers differently from POST',
    mutation: rewriteJson((r, res) => r.path === '/spark/list' && r.method === 'GET' && res.status === 200, (json) => ({ ...json, via: 'get' })),
  },
  'aliases.v1-equals-canonical': {
    breaks: '/v1/ads/campaigns answers differently from /ads/campaigns',
    mutation: rewriteJson((r, res) => r.path === '/v1/ads/campaigns' && res.status === 200, (json) => ({ ...json, via: 'v1' })),
  },
  'halo.refreshing-then-ok': {
    breaks: 'a refreshing storefront block has no refresh_started_at',
    mutation: rewriteJson((r, res) => r.path === '/halo-effect' && res.status === 200, (json) => {
      const storefront = json.data?.platforms?.storefront
      if (storefront) Object.assign(storefront, { connected: true, status: 'refreshing' })
      if (storefront) delete storefront.refresh_started_at
      return json
    }),
  },
  'invariants.ratio-fields': {
    breaks: 'ad_roi of campaigns is not ad_revenue / ad_spend',
    mutation: rewriteJson((r, res) => (r.path === '/ads/campaigns' || r.path === '/v1/ads/campaigns') && res.status === 200, (json) => {
      for (const c of json.data?.campaigns ?? []) c.ad_roi = (c.ad_roi ?? 0) + 1
      return json
    }),
  },
  'invariants.video-gmv-bounded': {
    breaks: 'video_gmv of the affiliate timeseries exceeds gmv',
    mutation: rewriteJson((r, res) => r.path === '/timeseries/affiliates' && Boolean(r.json?.search_params?.date_range) && res.status === 200, (json) => {
      const [row] = json.data ?? []
      if (row) row.video_gmv = row.gmv + 100
      return json
    }),
  },
  'samples.funnel-monotonic': {
    breaks: 'the approved stage of the funnel counts more than requested',
    mutation: rewriteJson((r, res) => r.path === '/affiliate/samples/funnel' && res.status === 200, (json) => {
      const funnel = json.data?.funnel
      if (Array.isArray(funnel) && funnel.length > 1) funnel[1].count = funnel[0].count + 1
      return json
    }),
  },
  'lists.handle-normalisation': {
    breaks: 'list handles with @ and capitals are not normalised (reported unmatched)',
    mutation: rewriteJson((r, res) => r.path === '/lists/create' && res.status < 300, (json, r) => {
      const odd = ((r.json?.handles ?? []) as string[]).filter((h) => h !== h.trim().toLowerCase() || h.trim().startsWith('@'))
      if (odd.length && json.data) {
        json.data.added_count = Math.max(0, json.data.added_count - odd.length)
        json.data.unmatched = [...(json.data.unmatched ?? []), ...odd]
      }
      return json
    }),
  },
  'tags.lifecycle': {
    breaks: 'removing a tag from its last creator keeps the tag',
    mutation: async (request, forward) => (request.path === '/tags/remove' ? jsonAnswer(200, { data: { tag: request.json?.tag, removed_count: 1, unmatched: [] } }) : forward()),
  },
  'outreach.filters-dropped': {
    breaks: 'more than 5 categories are refused instead of dropped',
    mutation: async (request, forward) => (request.path === '/automations/create' && (request.json?.outreach_filters?.categories?.length ?? 0) > 5 ? jsonAnswer(400, { error: 'outreach_filters.categories must have at most 5 entries' }) : forward()),
  },
  'auth.scale-plan-gate': {
    breaks: 'workflow toggle below the Scale plan answers 404 instead of 403',
    mutation: changeStatus((r) => r.path === '/workflows/toggle', 403, 404),
  },
  'dashboards.widget-validation': {
    breaks: 'unknown widget ids in widget_ids are ignored',
    mutation: async (request, forward) => (request.path === '/dashboards/data' && request.json?.widget_ids ? forward({ json: { ...request.json, widget_ids: undefined } }) : forward()),
  },
  'stats.daily-counts': {
    breaks: 'chart-No stats carry daily_counts',
    mutation: rewriteJson((r, res) => r.path === '/shop/stats' && r.json?.include_charts === true && res.status === 200, (json) => {
      for (const stat of json.data?.stats ?? []) if (stat.key === 'reply_ratio') stat.daily_counts = []
      return json
    }),
  },
  'stats.grain-buckets': {
    breaks: 'the first weekly point is dated on its Monday instead of the from date',
    mutation: rewriteJson((r, res) => r.path === '/shop/stats' && r.json?.grain === 'week' && res.status === 200, (json) => {
      const [first] = json.data?.stats?.[0]?.daily_counts ?? []
      if (first) {
        const d = new Date(`${first.date}T00:00:00Z`)
        d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7 || 7))
        first.date = d.toISOString().slice(0, 10)
      }
      return json
    }),
  },
  'ads.campaigns-total-count': {
    breaks: 'campaign total_count depends on the date range',
    mutation: rewriteJson((r, res) => r.path === '/ads/campaigns' && String(r.json?.date_range?.from).startsWith('2001') && res.status === 200, (json) => {
      json.data.total_count += 1
      return json
    }),
  },
  'ads.creatives-status-filter': {
    breaks: 'creatives total_count ignores the status filter',
    mutation: rewriteJson((r, res) => r.path === '/ads/creatives' && Array.isArray(r.json?.statuses) && res.status === 200, (json) => {
      json.data.total_count += 1
      return json
    }),
  },
  'sorting.invalid-falls-back': {
    breaks: 'an invalid sort_by of the campaign list is refused',
    mutation: async (request, forward) => (request.path === '/ads/campaigns' && request.json?.sort_by === 'conformance_not_a_field' ? jsonAnswer(400, { error: 'sort_by must be one of ...' }) : forward()),
  },
  'samples.ignore-hides': {
    breaks: 'ignored sample requests stay in the review list',
    mutation: async (request, forward) => {
      const statuses = request.json?.filters?.sample_status
      if (request.path !== '/affiliate/samples/list' || Array.isArray(statuses)) return forward()
      // Lists the ignored requests too, by merging in the ignore view.
      const visible = await forward()
      const ignored = await forward({ json: { ...request.json, filters: { ...request.json?.filters, sample_status: ['ignore'] } } })
      const merged = JSON.parse(visible.body)
      if (merged.data?.results) merged.data.results.push(...(JSON.parse(ignored.body).data?.results ?? []))
      return { ...visible, body: JSON.stringify(merged) }
    },
  },
  'aliases.spark-flat-date-keys': {
    breaks: 'flat shared_time_from/shared_time_to keys of the spark list are ignored',
    mutation: async (request, forward) => {
      const params = request.json?.search_params
      if (request.path !== '/spark/list' || !params?.shared_time_from) return forward()
      const { shared_time_from: _from, shared_time_to: _to, ...rest } = params
      return forward({ json: { ...request.json, search_params: rest } })
    },
  },
  'invariants.new-video-gmv-without-range': {
    breaks: 'without a date range new_video_gmv is not video_gmv',
    mutation: rewriteJson((r, res) => r.path === '/timeseries/affiliates' && !r.json?.search_params?.date_range && res.status === 200, (json) => {
      for (const row of json.data ?? []) row.new_video_gmv = row.video_gmv / 2
      return json
    }),
  },
  'contract.reads-answer': {
    breaks: 'the halo product links (a read only the sweep calls) are refused',
    mutation: async (request, forward) => (request.path === '/halo-effect/product-links' ? jsonAnswer(403, { error: 'Forbidden' }) : forward()),
  },
  'contract.writes-answer': {
    breaks: 'creating a custom email sender fails with 500',
    mutation: async (request, forward) => (request.path === '/emails/senders/create-custom' ? jsonAnswer(500, { error: 'Internal error' }) : forward()),
    alsoFails: { 'contract.responses-valid': '500 is an undocumented status, which is also a schema finding' },
  },
  'contract.responses-valid': {
    breaks: 'the SPS is out of its documented 0-5 range',
    mutation: rewriteJson((r, res) => r.path === '/shop/sps' && res.status === 200, (json) => ({ data: { ...json.data, sps: 7 } })),
  },
  'http.undocumented-methods': {
    breaks: 'a documented path called with a method it does not document answers 404 without Allow, as a router that knows only method+path pairs does',
    mutation: async (request, forward) => {
      const response = await forward()
      return response.status === 405 ? jsonAnswer(404, { error: `No operation at ${request.method} ${request.path}` }) : response
    },
  },
  'ratelimit.burst-429': {
    breaks: 'the server queues excess requests instead of answering 429',
    rateLimit: true,
    mutation: async (_request, forward) => {
      for (let attempt = 0; ; attempt++) {
        const response = await forward()
        if (response.status !== 429 || attempt > 20) return response
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    },
  },
}
