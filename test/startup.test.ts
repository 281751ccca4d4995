/**
 * Startup (issue 25: the first answer within 0.5 s, `npm run bench:startup`): what a server start
 * needs is built at once, the rest on first use, and what is built later is what would have been
 * built at once. Speed itself is measured in bench/, never asserted here.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createWorld, REGIONS } from '../fixtures/index.ts'
import { worldAt } from '../fixtures/as-of.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const digest = (value: unknown) => JSON.stringify(value, (_key, v) => (v instanceof Map ? [...v] : v instanceof Set ? [...v] : ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v))

describe('startup: built on first use, the same as built at once', () => {
  it('a lazy world (shops, creator pool, market) reads the same as one built at once, keys in the same order, frozen or not', () => {
    const options = { seed: 7, scale: 'small' as const, today: '2026-11-20' }
    const eager = createWorld(options)
    for (const lazy of [createWorld({ ...options, lazyShops: true }), createWorld({ ...options, lazyShops: true, freeze: true })]) {
      // Read in another order than they were built in: each part (each region of the market) draws from its own sub-seed.
      for (const region of [...REGIONS].reverse()) expect(digest(lazy.market[region])).toBe(digest(eager.market[region]))
      expect(digest(lazy.market)).toBe(digest(eager.market))
      if (lazy.options && Object.isFrozen(lazy.account)) expect(Object.isFrozen(lazy.market.us.brands[0])).toBe(true)
      for (const shop of [...lazy.shops].reverse()) expect(digest(lazy.shopData[shop.shop_id])).toBe(digest(eager.shopData[shop.shop_id]))
      expect(digest(lazy.creators)).toBe(digest(eager.creators))
      expect(Object.keys(lazy)).toEqual(Object.keys(eager))
    }
  }, 120_000)

  it('a view of a lazy world keeps its creator pool and market lazy, and reads the same ones', () => {
    const world = createWorld({ seed: 7, scale: 'small', today: '2026-11-20', lazyShops: true, freeze: true })
    const view = worldAt(world, Date.parse('2026-11-20T12:00:00Z'), { freeze: true }).world
    expect(typeof Object.getOwnPropertyDescriptor(view, 'creators')!.get).toBe('function')
    expect(typeof Object.getOwnPropertyDescriptor(view, 'market')!.get).toBe('function')
    expect(view.creators).toBe(world.creators)
    expect(view.market).toBe(world.market)
    expect(Object.isFrozen(view.creators[0])).toBe(true)
  })

  it('serve: the first answer (GET /health) builds no shop and loads neither the MCP SDK, zod, ajv, msw nor Node\'s fetch (undici); the control API and the connector still answer', async () => {
    // A child process, so that the modules it loads are its own.
    const script = `
      import module from 'node:module'
      const loaded = []
      module.registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context) } })
      const { createServer } = await import(${JSON.stringify(join(root, 'mock/server.ts'))})
      const mock = createServer({ stateOptions: { seed: 42, scale: 'default' } })
      const url = await mock.listen(0, '127.0.0.1')
      // node:http's CommonJS object, not fetch (which would load undici itself).
      const http = process.getBuiltinModule('node:http')
      const get = (path) => new Promise((resolve, reject) => http.get(url + path, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)) }).on('error', reject))
      const status = await get('/health')
      const heavy = () => loaded.filter((u) => /@modelcontextprotocol|\\/zod\\/|\\/ajv|\\/msw\\/|@mswjs/.test(u)).length
      const undici = () => process.moduleLoadList.some((m) => m.includes('undici'))
      const before = { status, heavy: heavy(), undici: undici(), unbuiltShops: mock.state.world.shops.filter((s) => typeof Object.getOwnPropertyDescriptor(mock.state.world.shopData, s.shop_id).get === 'function').length, shops: mock.state.world.shops.length }
      // The control API goes through msw's handlers, loaded now.
      const clock = await get('/__admin/clock')
      const mswLoaded = loaded.some((u) => /\\/msw\\//.test(u))
      const mcp = await fetch(url + '/mcp', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer nope' }, body: '{}' })
      await mcp.arrayBuffer()
      console.log(JSON.stringify({ ...before, clock, mswLoaded, mcpStatus: mcp.status }))
      await mock.close()
    `
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: root })
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as { status: number; heavy: number; undici: boolean; unbuiltShops: number; shops: number; clock: number; mswLoaded: boolean; mcpStatus: number }
    expect(result).toMatchObject({ status: 200, heavy: 0, undici: false, unbuiltShops: result.shops, clock: 200, mswLoaded: true, mcpStatus: 401 })
    expect(result.shops).toBeGreaterThan(1)
  }, 60_000)
})
