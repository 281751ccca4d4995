/**
 * An area's typed state (defineAreaState): built from the current world on first use, one per mock
 * state, dropped by reset, changed only through its named writes (MockState.write), which move the
 * version, take plain data in strict mode and are reported to onWrite in order.
 */
import { describe, expect, it } from 'vitest'
import { defineAreaState, type WriteRecord } from '../mock/context.ts'
import { createMockState } from '../mock/state.ts'
import { sampleRequestsOf, samplesState } from '../mock/lib/sample-requests.ts'

const counter = defineAreaState('test', (world) => ({ seed: world.options.seed, shops: world.shops.length, writes: 0, log: [] as string[] }), {
  add(state, input: { by: number; note: string }) {
    state.writes += input.by
    state.log.push(input.note)
    return state.writes
  },
})

describe('area state (defineAreaState, MockState.read and write)', () => {
  it('is created from the world on first use and then kept', () => {
    const state = createMockState({ seed: 3, rateLimit: false })
    const first = state.read(counter)
    expect(first).toEqual({ seed: 3, shops: state.world.shops.length, writes: 0, log: [] })
    expect(state.write(counter, 'add', { by: 2, note: 'a' })).toBe(2)
    expect(state.read(counter)).toBe(first)
    expect(first.writes).toBe(2)
  })

  it('belongs to one mock state: two mocks in one process do not share it', () => {
    const a = createMockState({ seed: 3, rateLimit: false })
    const b = createMockState({ seed: 3, rateLimit: false })
    a.write(counter, 'add', { by: 1, note: 'a' })
    expect(b.read(counter).writes).toBe(0)
  })

  it('is dropped by reset and rebuilt from the new world', () => {
    const state = createMockState({ seed: 3, rateLimit: false })
    state.write(counter, 'add', { by: 1, note: 'a' })
    state.reset({ seed: 4 })
    expect(state.read(counter)).toEqual({ seed: 4, shops: state.world.shops.length, writes: 0, log: [] })
  })

  it('moves the version on every write and reports each write, in order, as plain data', () => {
    const seen: WriteRecord[] = []
    const state = createMockState({ seed: 3, rateLimit: false, onWrite: (w) => seen.push(w) })
    const before = state.version
    state.write(counter, 'add', { by: 1, note: 'a' })
    state.write(counter, 'add', { by: 5, note: 'b' })
    expect(state.version).toBe(before + 2)
    expect(seen).toEqual([
      { area: 'test', name: 'add', input: { by: 1, note: 'a' }, version: before + 1 },
      { area: 'test', name: 'add', input: { by: 5, note: 'b' }, version: before + 2 },
    ])
    // Replaying the log on a fresh state of the same seed gives the same state.
    const replica = createMockState({ seed: 3, rateLimit: false })
    for (const w of seen) replica.write(counter, w.name as 'add', w.input as { by: number; note: string })
    expect(replica.read(counter)).toEqual(state.read(counter))
  })

  it('refuses an input that is not plain data in strict mode', () => {
    const state = createMockState({ seed: 3, rateLimit: false, strict: true })
    expect(() => state.write(counter, 'add', { by: 1, note: new Date(0) as unknown as string })).toThrow(/test\.add got input\.note that is not plain data/)
    expect(() => state.write(counter, 'add', { by: Number.NaN, note: 'x' })).toThrow(/input\.by/)
  })
})

describe('the generated world is read-only', () => {
  it('is frozen when asked: an in-place edit of a record or a list throws', () => {
    const state = createMockState({ seed: 3, rateLimit: false, freezeWorld: true })
    const shopId = state.world.shops[0]!.shop_id
    const data = state.world.shopData[shopId]!
    expect(Object.isFrozen(data.affiliates[0])).toBe(true)
    expect(() => (data.affiliates as unknown[]).push({})).toThrow(TypeError)
    expect(() => {
      ;(state.world.shops[0] as unknown as { name: string }).name = 'x'
    }).toThrow(TypeError)
  })

  it('is frozen by default in tests and in strict mode', () => {
    const state = createMockState({ seed: 3, rateLimit: false })
    expect(Object.isFrozen(state.world.shopData[state.world.shops[0]!.shop_id]!.videos)).toBe(true)
    expect(Object.isFrozen(state.world.shops)).toBe(true)
  })

  it('can be left unfrozen (the standalone server, where the walk would cost start-up time)', () => {
    const state = createMockState({ seed: 3, rateLimit: false, freezeWorld: false })
    expect(Object.isFrozen(state.world.shops)).toBe(false)
  })
  it('a frozen world is built once per seed, scale and today and shared by the states made for them (the last 4 kept); an unfrozen one is built anew', async () => {
    const { buildWorld } = await import('../mock/world.ts')
    const options = { seed: 3, scale: 'small', today: '2026-11-20', freeze: true }
    const world = buildWorld(options)
    expect(buildWorld(options)).toBe(world)
    for (const other of [{ seed: 4 }, { scale: 'default' }, { today: '2026-11-21' }, { freeze: false }]) expect(buildWorld({ ...options, ...other })).not.toBe(world)
    expect(buildWorld({ ...options, freeze: false })).not.toBe(buildWorld({ ...options, freeze: false }))
    // Used last: kept while four others are built, then dropped for a fifth.
    expect(buildWorld(options)).toBe(world)
    for (const seed of [10, 11, 12]) buildWorld({ ...options, seed })
    expect(buildWorld(options)).toBe(world)
    for (const seed of [10, 11, 12, 13]) buildWorld({ ...options, seed })
    expect(buildWorld(options)).not.toBe(world)
  })

  it('two states on one shared world keep their own writes, clock and view', () => {
    const a = createMockState({ seed: 3, rateLimit: false, now: '2026-11-20T12:00:00.000Z', today: '2026-11-20' })
    const b = createMockState({ seed: 3, rateLimit: false, now: '2026-11-20T12:00:00.000Z', today: '2026-11-20' })
    const shopId = a.world.shops[0]!.shop_id
    const before = sampleRequestsOf(b, shopId)
    const creator = a.world.creators[0]!
    const product = a.world.shopData[shopId]!.skus[0]!
    a.write(samplesState, 'arrive', { shopId, creatorId: creator.creator_id, handle: creator.handle, productId: product.product_id, skuId: product.sku_id, source: 'Open', at: '2026-11-20T12:00:00.000Z', expireDate: '2026-11-27' })
    expect(sampleRequestsOf(a, shopId).length).toBe(before.length + 1)
    expect(sampleRequestsOf(b, shopId)).toBe(before)
    a.clock.advance(3 * 3600_000)
    expect(b.clock.now().toISOString()).toBe('2026-11-20T12:00:00.000Z')
    expect(sampleRequestsOf(b, shopId)).toBe(before)
  })
})
