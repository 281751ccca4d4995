/**
 * The shops' sample requests as requests change them (spec: Samples; States and transitions: sample
 * request ignored): the world's, then approvals, rejections, ignores, arrivals and the DMs sent to
 * creators. The samples area writes them, the stats (`samples_*` keys) read them: both through here.
 */
import type { SampleRequest, ShopData } from '../../fixtures/types.ts'
import { defineAreaState, type DeepReadonly } from '../context.ts'
import type { MockState } from '../state.ts'
import { shopStates, type ShopStates } from './shop.ts'

interface SentDm {
  dm_id: string
  creator_id: string
  message: string
  sent_at: string
}

interface ShopSamples {
  /**
   * Replaced, never edited, by each write that changes a request (the records it changes are new
   * objects too): the list's identity tells a cache built from it (the stats' days) that it still holds.
   */
  requests: readonly SampleRequest[]
  /** Appends a request: it joins `requests` (a new list) when that is next read. */
  add(request: SampleRequest): void
  /** Creators whose future requests are auto-ignored. */
  permaIgnored: string[]
  dms: SentDm[]
  /** Requests made through the control API (numbers their apply_id). */
  arrived: number
}

function seed(data: ShopData): ShopSamples {
  let requests: readonly SampleRequest[] = data.sampleRequests
  // Arrivals since `requests` was last read, joined in one copy on the next read: a list copied per
  // arrival made a certification session's 1,100 arrivals quadratic, and the view replays every
  // write since the reset each time the clock moves it (mock/state.ts). A read after any arrival
  // still gets a new list, a read after none the same one, as when each arrival replaced the list.
  let arriving: SampleRequest[] = []
  return {
    get requests() {
      if (arriving.length > 0) {
        requests = [...requests, ...arriving]
        arriving = []
      }
      return requests
    },
    set requests(list) {
      // A list made from `requests` as read: it holds every arrival before it.
      if (arriving.length > 0) throw new Error('sample requests replaced without reading the arrivals first')
      requests = list
    },
    add(request) {
      arriving.push(request)
    },
    permaIgnored: [...data.permaIgnoredCreators],
    dms: [],
    arrived: 0,
  }
}

/** A new request as the control API makes one arrive (`POST /__admin/samples/arrive`); times as ISO text. */
interface ArrivingRequest {
  shopId: string
  creatorId: string
  handle: string
  productId: string
  skuId: string
  source: SampleRequest['source']
  at: string
  expireDate: string
}

/** Applies `change` to the shop's requests named by applyIds (unknown ids dropped, duplicates once); the number it changed. */
function changeRequests(shop: ShopSamples, applyIds: readonly string[], change: (r: SampleRequest) => SampleRequest | undefined): number {
  const wanted = new Set(applyIds)
  let changed = 0
  const requests = shop.requests.map((r) => {
    const next = wanted.has(r.apply_id) ? change(r) : undefined
    if (!next) return r
    changed++
    return next
  })
  if (changed > 0) shop.requests = requests
  return changed
}

/** spec: Samples: approve and reject move `To Review` requests only. */
const reviewed = (update: Partial<SampleRequest>) => (r: SampleRequest) => (r.status === 'To Review' ? { ...r, ...update } : undefined)

/** spec: States: ignoring changes `ignored` only, never the platform status. */
const withIgnored = (ignored: boolean) => (r: SampleRequest) => (r.ignored === ignored ? undefined : { ...r, ignored })

export const samplesState = defineAreaState('samples', (world): ShopStates<ShopSamples> => shopStates(world, seed), {
  /** The `To Review` requests among applyIds become `Ready to Ship`, approved at `at`; the number moved. */
  approve(shops, input: { shopId: string; applyIds: string[]; at: string }): number {
    return changeRequests(shops.of(input.shopId), input.applyIds, reviewed({ status: 'Ready to Ship', sample_approved: input.at }))
  },
  /** The `To Review` requests among applyIds become `Rejected`; the number moved. */
  reject(shops, input: { shopId: string; applyIds: string[] }): number {
    return changeRequests(shops.of(input.shopId), input.applyIds, reviewed({ status: 'Rejected' }))
  },
  /**
   * Ignores the requests; spec: Samples: perma_ignore_affiliates auto-ignores every future request of
   * those creators. The number of requests that were not ignored yet.
   */
  ignore(shops, input: { shopId: string; applyIds: string[]; permaIgnoreCreatorIds: string[] }): number {
    const shop = shops.of(input.shopId)
    for (const id of input.permaIgnoreCreatorIds) if (!shop.permaIgnored.includes(id)) shop.permaIgnored.push(id)
    return changeRequests(shop, input.applyIds, withIgnored(true))
  },
  /** The number of the requests that were ignored. */
  unignore(shops, input: { shopId: string; applyIds: string[] }): number {
    return changeRequests(shops.of(input.shopId), input.applyIds, withIgnored(false))
  },
  /** Records a DM sent to a creator; its dm_id. */
  sendDm(shops, input: { shopId: string; creatorId: string; message: string; at: string }): string {
    const { dms } = shops.of(input.shopId)
    const dm: SentDm = { dm_id: `dm-${dms.length + 1}`, creator_id: input.creatorId, message: input.message, sent_at: input.at }
    dms.push(dm)
    return dm.dm_id
  },
  /** A new `To Review` request, auto-ignored when its creator is perma-ignored. */
  arrive(shops, input: ArrivingRequest): SampleRequest {
    const shop = shops.of(input.shopId)
    shop.arrived++
    const request: SampleRequest = {
      shop_id: input.shopId,
      apply_id: `59${String(shop.arrived).padStart(17, '0')}`,
      creator_id: input.creatorId,
      handle: input.handle,
      sampled_product: input.productId,
      sku_id: input.skuId,
      status: 'To Review',
      campaign_id: null,
      source: input.source,
      timestamp: input.at,
      sample_approved: null,
      sample_shipped: null,
      sample_received: null,
      sample_posted: null,
      posted_video_id: null,
      expire_date: input.expireDate,
      ignored: shop.permaIgnored.includes(input.creatorId),
      previous_approved: false,
    }
    shop.add(request)
    return request
  },
})

/** The shop's sample requests as they stand now. */
export const sampleRequestsOf = (state: MockState, shopId: string): DeepReadonly<SampleRequest[]> => state.read(samplesState).of(shopId).requests
