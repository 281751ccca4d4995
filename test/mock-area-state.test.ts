/**
 * An area's typed state (defineAreaState): built from the current world on first use, one per mock
 * state, dropped by reset (the dashboards' boards live in it).
 */
import { describe, expect, it } from 'vitest'
import { defineAreaState } from '../mock/context.ts'
import { createMockState } from '../mock/state.ts'

const counter = defineAreaState('test', (world) => ({ seed: world.options.seed, shops: world.shops.length, writes: 0 }))

describe('area state (defineAreaState, MockState.areaState)', () => {
  it('is created from the world on first use and then kept', () => {
    const state = createMockState({ seed: 3, rateLimit: false })
    const first = state.areaState(counter)
    expect(first).toEqual({ seed: 3, shops: state.world.shops.length, writes: 0 })
    first.writes++
    expect(state.areaState(counter)).toBe(first)
  })

  it('belongs to one mock state: two mocks in one process do not share it', () => {
    const a = createMockState({ seed: 3, rateLimit: false })
    const b = createMockState({ seed: 3, rateLimit: false })
    a.areaState(counter).writes++
    expect(b.areaState(counter).writes).toBe(0)
  })

  it('is dropped by reset and rebuilt from the new world', () => {
    const state = createMockState({ seed: 3, rateLimit: false })
    state.areaState(counter).writes++
    state.reset({ seed: 4 })
    expect(state.areaState(counter)).toEqual({ seed: 4, shops: state.world.shops.length, writes: 0 })
  })
})
