/**
 * The outreach records requests change (spec: Rules of the named resources; Other named resources):
 * lists, groups, automations, workflows, creator briefs, community campaigns and payouts, email
 * campaigns and senders. The mock state holds them, seeded from the world's records, and changes them
 * only through the named writes below; the world stays as generated. The outreach area writes them;
 * the stats read the automations and email campaigns their events belong to, hence a state of lib/.
 *
 * Every id and code a write makes comes from the shop's own counters in this state, so replaying the
 * writes in order on a fresh state of the same seed makes the same records.
 */
import { BRIEF_URL, COMMUNITY_URL } from '../../fixtures/outreach.ts'
import type { Automation, CommunityCampaign, CommunityPayout, CreatorBrief, CreatorGroup, EmailCampaign, EmailSender, ShopData, Workflow } from '../../fixtures/types.ts'
import type { components } from '../../openapi/types.ts'
import { defineAreaState, type DeepReadonly } from '../context.ts'
import { apiError } from '../respond.ts'
import type { MockState } from '../state.ts'
import type { World } from '../world.ts'
import { fnv1a, hex32 } from './digest.ts'

type EmailRecipients = components['schemas']['EmailRecipients']
/** An email campaign as kept: with the recipients it was written for (the fixtures seed none). */
export type StoredEmailCampaign = EmailCampaign & { recipients?: EmailRecipients }
/** A workflow as kept: `updated_at` once a request changed it. */
export type StoredWorkflow = Workflow & { updated_at?: string }

/** A shop's outreach records, one array per kind. */
export interface OutreachRecords {
  lists: ShopData['lists']
  groups: CreatorGroup[]
  briefs: CreatorBrief[]
  automations: Automation[]
  emailCampaigns: StoredEmailCampaign[]
  emailSenders: EmailSender[]
  workflows: StoredWorkflow[]
  communityCampaigns: CommunityCampaign[]
  communityPayouts: CommunityPayout[]
}

/** What a shop's outreach keeps once a request changed it. */
interface ShopOutreach {
  /** Copies of the world's arrays; a changed record is replaced by a new one, never edited. */
  records: OutreachRecords
  /** The next number of the shop's id sequence (one sequence for every outreach id). */
  sequence: number
  /** The next number of each kind of public code (brief short codes, community slugs). */
  codes: Record<string, number>
  /** Each kind addressed by an id: its records by id (the first of an id, as a scan finds it), kept by every write that adds, replaces or removes one. */
  byId: { [K in KeyedKind]: Map<string, OutreachRecords[K][number]> }
}

interface OutreachState {
  seed: number
  /** The world's shops in order: a shop's position picks its block of every code space. */
  shopIds: readonly string[]
  /** A shop's records as generated. */
  seeded: (shopId: string) => DeepReadonly<OutreachRecords>
  /** The shops a request has changed. */
  shops: Map<string, ShopOutreach>
}

/** The kinds of record addressed by an id (updated, deleted), and the field holding it. */
export const ID_FIELDS = {
  groups: 'group_id',
  briefs: 'brief_id',
  automations: 'campaign_id',
  emailCampaigns: 'campaign_id',
  workflows: 'workflow_id',
  communityCampaigns: 'campaign_id',
} as const
export type KeyedKind = keyof typeof ID_FIELDS

const OUTREACH_KINDS = ['lists', 'groups', 'briefs', 'automations', 'emailCampaigns', 'emailSenders', 'workflows', 'communityCampaigns', 'communityPayouts'] as const
const KEYED_KINDS = Object.keys(ID_FIELDS) as KeyedKind[]

/** Records by their id field: the first record of an id, as `find` would give it. */
function indexById<T>(records: readonly T[], field: string): Map<string, T> {
  const byId = new Map<string, T>()
  for (const record of records) {
    const id = (record as Record<string, unknown>)[field] as string
    if (!byId.has(id)) byId.set(id, record)
  }
  return byId
}

/** Adds a new record to its kind's index (a record already holding the id stays first). */
function indexAdded<K extends KeyedKind>(shop: ShopOutreach, kind: K, record: OutreachRecords[K][number]): void {
  const byId = shop.byId[kind] as Map<string, OutreachRecords[K][number]>
  const id = (record as Record<string, unknown>)[ID_FIELDS[kind]] as string
  if (!byId.has(id)) byId.set(id, record)
}

function createOutreachState(world: World): OutreachState {
  return {
    seed: world.options.seed,
    shopIds: world.shops.map((s) => s.shop_id),
    seeded: (shopId) => world.shopData[shopId]!,
    shops: new Map(),
  }
}

/** The shop's outreach for writing: its records copied from the world on the first write. */
function shopOutreach(state: OutreachState, shopId: string): ShopOutreach {
  let shop = state.shops.get(shopId)
  if (!shop) {
    const seeded = state.seeded(shopId) as OutreachRecords
    const records = Object.fromEntries(OUTREACH_KINDS.map((kind) => [kind, [...seeded[kind]]])) as unknown as OutreachRecords
    const byId = Object.fromEntries(KEYED_KINDS.map((kind) => [kind, indexById<unknown>(records[kind], ID_FIELDS[kind])])) as unknown as ShopOutreach['byId']
    state.shops.set(shopId, (shop = { records, sequence: 0, codes: {}, byId }))
  }
  return shop
}

const recordsNow = (state: DeepReadonly<OutreachState>, shopId: string): DeepReadonly<OutreachRecords> => state.shops.get(shopId)?.records ?? state.seeded(shopId)

/** A new UUID-shaped id, deterministic for the world's seed and the shop's sequence of writes. */
function newId(state: OutreachState, shopId: string, kind: string): string {
  const seed = `${state.seed}/${shopId}/${kind}/${shopOutreach(state, shopId).sequence++}`
  const h = [0, 1, 2, 3].map((i) => hex32(`${seed}#${i}`)).join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz'
/** Codes one shop can make of each kind; a shop's codes are a block of the code space of this size. */
const CODES_PER_SHOP = 1 << 20

/**
 * The kinds of public code: their length, their letters, and the codes in use they must not repeat
 * (every shop's, as they are now: public links are world-wide).
 */
const CODE_KINDS = {
  'brief-code': { length: 8, alphabet: BASE36.slice(0, 16), inUse: (records: DeepReadonly<OutreachRecords>) => records.briefs.map((b) => b.short_code) },
  'community-slug': { length: 6, alphabet: BASE36, inUse: (records: DeepReadonly<OutreachRecords>) => records.communityCampaigns.map((c) => c.slug) },
} as const
type CodeKind = keyof typeof CODE_KINDS

/**
 * A new public code of its kind's length and letters ([a-z0-9], or hex), unique across the world and
 * unused by the codes in use. Made by construction, never by retrying at random: the shop's position
 * and its own counter of this kind name one number of the code space, and an affine bijection of the
 * code space (a multiplier coprime with its size, an offset from the seed) turns it into the code.
 * Distinct (shop, counter) pairs give distinct codes, so the loop below skips at most `taken.size`
 * codes before it finds a free one.
 */
function newCode(state: OutreachState, shopId: string, kind: CodeKind): string {
  const { length, alphabet: letters, inUse } = CODE_KINDS[kind]
  const taken = new Set(state.shopIds.flatMap((id) => inUse(recordsNow(state, id))))
  const size = BigInt(letters.length) ** BigInt(length)
  const shopIndex = BigInt(state.shopIds.indexOf(shopId))
  const codes = shopOutreach(state, shopId).codes
  // Coprime with 16^n and 36^n (odd, not a multiple of 3); the offset makes codes differ per seed.
  const multiplier = (BigInt(fnv1a(`${state.seed}/${kind}/multiplier`)) * 6n + 1n) % size
  const offset = BigInt(fnv1a(`${state.seed}/${kind}/offset`)) % size
  for (let skipped = 0; skipped <= taken.size; skipped++) {
    const next = codes[kind] ?? 0
    if (next >= CODES_PER_SHOP || (shopIndex + 1n) * BigInt(CODES_PER_SHOP) > size) {
      throw apiError(400, `No ${kind} code is left for this shop (${CODES_PER_SHOP} per shop)`)
    }
    codes[kind] = next + 1
    let value = (shopIndex * BigInt(CODES_PER_SHOP) + BigInt(next)) * multiplier + offset
    value %= size
    let code = ''
    for (let i = 0; i < length; i++) {
      code = letters[Number(value % BigInt(letters.length))] + code
      value /= BigInt(letters.length)
    }
    if (!taken.has(code)) return code
  }
  throw new Error(`newCode: ${taken.size + 1} distinct codes were all taken (the bijection is broken)`)
}

/**
 * Sets a shop's list of `kind` to a new array (the named lists: few and capped). The other kinds'
 * lists are the state's own copies, appended to in place by the creates (a copy per create would
 * make a shop's thousandth create cost a thousand copies): key a cache on the state's version, not
 * on a list's identity.
 */
function setList<K extends keyof OutreachRecords>(state: OutreachState, shopId: string, kind: K, next: OutreachRecords[K]): void {
  shopOutreach(state, shopId).records[kind] = next
}

/** Replaces the record of `kind` whose id field is `id` by a copy with `changes` (fields keep their order, new ones come last). */
function replaceRecord<K extends KeyedKind>(state: OutreachState, shopId: string, kind: K, id: string, changes: Partial<OutreachRecords[K][number]>): OutreachRecords[K][number] {
  const shop = shopOutreach(state, shopId)
  const records = shop.records[kind] as Array<OutreachRecords[K][number]>
  const at = records.findIndex((r) => (r as Record<string, unknown>)[ID_FIELDS[kind]] === id)
  if (at < 0) throw new Error(`outreach: no ${kind} record ${id} to update`)
  const record = (records[at] = { ...records[at]!, ...changes })
  // The first record of the id is the one replaced: it stays the index's.
  ;(shop.byId[kind] as Map<string, OutreachRecords[K][number]>).set(id, record)
  return record
}

/** Every write's input names the shop. */
interface ShopWrite {
  shopId: string
}
/** A write that stamps records takes the request's time (ISO) in its input, never the clock. */
interface Stamped extends ShopWrite {
  now: string
}
/** What a create draws before its last checks: ids of the shop's sequence and codes of some kinds. */
export type Draws = ShopWrite & { ids: number; codes: CodeKind[] }
type Update<T> = Stamped & { id: string; changes: Partial<T> }

const updateOf =
  <K extends KeyedKind>(kind: K) =>
  (state: OutreachState, input: Update<OutreachRecords[K][number]>) =>
    replaceRecord(state, input.shopId, kind, input.id, { ...input.changes, updated_at: input.now } as Partial<OutreachRecords[K][number]>)

export const outreachState = defineAreaState('outreach', createOutreachState, {
  /** Appends handles to the list titled `title`, created empty when the shop has none; a handle already on it is skipped. Returns how many were added. */
  addToList(state, input: Stamped & { title: string; handles: string[] }): number {
    const lists = [...shopOutreach(state, input.shopId).records.lists]
    let at = lists.findIndex((l) => l.title === input.title)
    if (at < 0) at = lists.push({ title: input.title, handles: [], created_at: input.now }) - 1
    const handles = [...lists[at]!.handles]
    const present = new Set(handles)
    for (const handle of input.handles) {
      if (present.has(handle)) continue
      present.add(handle)
      handles.push(handle)
    }
    const added = handles.length - lists[at]!.handles.length
    lists[at] = { ...lists[at]!, handles }
    setList(state, input.shopId, 'lists', lists)
    return added
  },
  deleteList(state, input: ShopWrite & { title: string }): void {
    setList(state, input.shopId, 'lists', shopOutreach(state, input.shopId).records.lists.filter((l) => l.title !== input.title))
  },
  /** Removes the record of `kind` whose id field is `id`. */
  deleteRecord(state, input: ShopWrite & { kind: KeyedKind; id: string }): void {
    const shop = shopOutreach(state, input.shopId)
    const field = ID_FIELDS[input.kind]
    const records = shop.records[input.kind] as Array<Record<string, unknown>>
    records.splice(records.findIndex((r) => r[field] === input.id), 1)
    const byId = shop.byId[input.kind] as Map<string, unknown>
    const next = records.find((r) => r[field] === input.id)
    if (next) byId.set(input.id, next)
    else byId.delete(input.id)
  },
  createGroup(state, input: Stamped & { name: string; filters: CreatorGroup['filters'] }): CreatorGroup {
    const group: CreatorGroup = { group_id: newId(state, input.shopId, 'group'), name: input.name, filters: input.filters, created_at: input.now }
    const shop = shopOutreach(state, input.shopId)
    shop.records.groups.push(group)
    indexAdded(shop, 'groups', group)
    return group
  },
  createBrief(state, input: Stamped & Pick<CreatorBrief, 'title' | 'type' | 'video_mode' | 'video_ids' | 'product_id'>): CreatorBrief {
    const { shopId, now, ...fields } = input
    const shortCode = newCode(state, shopId, 'brief-code')
    const brief: CreatorBrief = {
      brief_id: newId(state, shopId, 'brief'),
      title: fields.title,
      type: fields.type,
      video_mode: fields.video_mode,
      video_ids: fields.video_ids,
      product_id: fields.product_id,
      short_code: shortCode,
      public_url: `${BRIEF_URL}/${shortCode}`,
      created_at: now,
      updated_at: now,
    }
    const shop = shopOutreach(state, shopId)
    shop.records.briefs.push(brief)
    indexAdded(shop, 'briefs', brief)
    return brief
  },
  updateBrief: updateOf('briefs'),
  createAutomation(state, input: Stamped & Omit<Automation, 'campaign_id' | 'status' | 'created_at' | 'updated_at'>): Automation {
    const { shopId, now, ...fields } = input
    const automation: Automation = {
      campaign_id: newId(state, shopId, 'automation'),
      title: fields.title,
      status: 'stopped',
      message_type: fields.message_type,
      outreach_audience: fields.outreach_audience,
      dm_messages: fields.dm_messages,
      invite_details: fields.invite_details,
      outreach_filters: fields.outreach_filters,
      messages_remaining: fields.messages_remaining,
      created_at: now,
      updated_at: now,
    }
    const shop = shopOutreach(state, shopId)
    shop.records.automations.push(automation)
    indexAdded(shop, 'automations', automation)
    return automation
  },
  updateAutomation: updateOf('automations'),
  createEmailCampaign(state, input: Stamped & Omit<StoredEmailCampaign, 'campaign_id' | 'created_at' | 'updated_at'>): StoredEmailCampaign {
    const { shopId, now, ...fields } = input
    const campaign: StoredEmailCampaign = {
      campaign_id: newId(state, shopId, 'email-campaign'),
      title: fields.title,
      subject: fields.subject,
      body: fields.body,
      sender_id: fields.sender_id,
      recipients: fields.recipients,
      status: fields.status,
      sent_at: fields.sent_at,
      created_at: now,
      updated_at: now,
    }
    const shop = shopOutreach(state, shopId)
    shop.records.emailCampaigns.push(campaign)
    indexAdded(shop, 'emailCampaigns', campaign)
    return campaign
  },
  updateEmailCampaign: updateOf('emailCampaigns'),
  createEmailSender(state, input: Stamped & Pick<EmailSender, 'email' | 'name' | 'reply_to'>): EmailSender {
    const sender: EmailSender = {
      sender_id: newId(state, input.shopId, 'email-sender'),
      email: input.email,
      name: input.name,
      reply_to: input.reply_to,
      verified: true,
      created_at: input.now,
      custom: true,
    }
    shopOutreach(state, input.shopId).records.emailSenders.push(sender)
    return sender
  },
  createWorkflow(state, input: Stamped & Pick<Workflow, 'name' | 'status' | 'trigger' | 'steps'>): StoredWorkflow {
    const workflow: StoredWorkflow = {
      workflow_id: newId(state, input.shopId, 'workflow'),
      name: input.name,
      status: input.status,
      trigger: input.trigger,
      steps: input.steps,
      created_at: input.now,
      updated_at: input.now,
    }
    const shop = shopOutreach(state, input.shopId)
    shop.records.workflows.push(workflow)
    indexAdded(shop, 'workflows', workflow)
    return workflow
  },
  setWorkflowStatus: (state, input: Stamped & { id: string; status: Workflow['status'] }) =>
    replaceRecord(state, input.shopId, 'workflows', input.id, { status: input.status, updated_at: input.now }),
  createCommunityCampaign(state, input: Stamped & Omit<CommunityCampaign, 'campaign_id' | 'slug' | 'share_link' | 'created_at' | 'updated_at'>): CommunityCampaign {
    const { shopId, now, ...fields } = input
    const slug = newCode(state, shopId, 'community-slug')
    const campaign = {
      campaign_id: newId(state, shopId, 'community-campaign'),
      title: fields.title,
      type: fields.type,
      status: fields.status,
      slug,
      share_link: `${COMMUNITY_URL}/${slug}`,
      description: fields.description,
      start_date: fields.start_date,
      end_date: fields.end_date,
      settings: fields.settings,
      created_at: now,
      updated_at: now,
    } as CommunityCampaign
    const shop = shopOutreach(state, shopId)
    shop.records.communityCampaigns.push(campaign)
    indexAdded(shop, 'communityCampaigns', campaign)
    return campaign
  },
  updateCommunityCampaign: updateOf('communityCampaigns'),
  authorizeCommunityPayout(state, input: ShopWrite & Omit<CommunityPayout, 'payout_id' | 'status'>): CommunityPayout {
    const payout: CommunityPayout = {
      payout_id: newId(state, input.shopId, 'community-payout'),
      campaign_id: input.campaign_id,
      creator_id: input.creator_id,
      handle: input.handle,
      period: input.period,
      amount: input.amount,
      status: 'authorized',
      authorized_at: input.authorized_at,
    }
    shopOutreach(state, input.shopId).records.communityPayouts.push(payout)
    return payout
  },
  /**
   * A create refused by a check that comes after it drew its id (and code): the draws stay used, so
   * the ids and codes of the next creates are those they have always been.
   */
  discardDraws(state, input: Draws): void {
    for (const kind of input.codes) newCode(state, input.shopId, kind)
    shopOutreach(state, input.shopId).sequence += input.ids
  },
}, { stableAcrossViews: true }) // outreach's records do not come with the clock

/** The shop's outreach records as they are now (read-only). */
export const outreachRecords = (state: MockState, shopId: string): DeepReadonly<OutreachRecords> => recordsNow(state.read(outreachState), shopId)

/** By a world's records of a kind (a shop no request has changed reads them as generated): their index by id. */
const seededById = new WeakMap<readonly unknown[], Map<string, unknown>>()

/**
 * The shop's record of `kind` whose id field (ID_FIELDS) is `id`, as it is now, or undefined: the
 * first such record, as a scan would find it, without one (the records of a kind can number many
 * thousands after a run of creates).
 */
export function outreachRecordById<K extends KeyedKind>(state: MockState, shopId: string, kind: K, id: unknown): DeepReadonly<OutreachRecords[K][number]> | undefined {
  if (typeof id !== 'string') return undefined
  const outreach = state.read(outreachState)
  const shop = outreach.shops.get(shopId)
  if (shop) return shop.byId[kind].get(id) as DeepReadonly<OutreachRecords[K][number]> | undefined
  const records = outreach.seeded(shopId)[kind] as readonly unknown[]
  let byId = seededById.get(records)
  if (!byId) seededById.set(records, (byId = indexById(records, ID_FIELDS[kind])))
  return byId.get(id) as DeepReadonly<OutreachRecords[K][number]> | undefined
}
