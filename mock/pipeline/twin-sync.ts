/**
 * On a shared store (mock/twin/), a request first catches up with what other replicas logged: one
 * round trip when nothing changed, so a write on one replica is read on every other from the next
 * request on. In memory there is nothing to do and this step costs nothing.
 */
import { refreshContext, type Step } from './compose.ts'

export const twinSync = (): Step =>
  function twinSync(ctx, next) {
    const synced = ctx.state.sync()
    if (!(synced instanceof Promise)) return next()
    return synced.then(() => {
      refreshContext(ctx)
      return next()
    })
  }
