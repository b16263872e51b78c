import type { Context } from 'hono'
import type { AppEnv } from './env.ts'

/** Ends a charge once it is known whether the answer reached the caller (InvocationResult.settle). */
export type Settle = (delivered: boolean) => Promise<void>

/**
 * Settles a charge by what becomes of this request's response. On a Node server
 * (@hono/node-server passes its `ServerResponse` as `c.env.outgoing`): delivered on 'finish',
 * once every byte was handed to the kernel; not delivered on 'close' before that (the client went
 * away, a write failed). Called in process (no Node response: `app.request`, `app.fetch`), the
 * Response handed back is the delivery, so the charge is settled as delivered before it is
 * returned. Call it once the response is built and only then: a failure before that is settled
 * as not delivered by the route itself.
 */
export async function settleOnDelivery(c: Context<AppEnv>, settle: Settle): Promise<void> {
  const outgoing = c.env?.outgoing
  if (!outgoing || typeof outgoing.once !== 'function') {
    await settle(true)
    return
  }
  if (outgoing.destroyed) {
    await settle(false)
    return
  }
  const onFinish = () => void settle(true)
  outgoing.once('finish', onFinish)
  outgoing.once('close', () => {
    outgoing.off('finish', onFinish)
    // 'close' follows 'finish' on a delivered response; settle keeps the first outcome.
    void settle(outgoing.writableFinished)
  })
}

/**
 * Settles that arrive while a handler builds its response (the tool results of an MCP request),
 * all settled together with that response's delivery. A settle added after the delivery was
 * known is settled at once with it.
 */
export function collectSettles(): { add(settle: Settle): void; settle: Settle } {
  const settles: Settle[] = []
  let outcome: boolean | undefined
  return {
    add(settle) {
      if (outcome === undefined) settles.push(settle)
      else void settle(outcome)
    },
    async settle(delivered) {
      if (outcome !== undefined) return
      outcome = delivered
      await Promise.all(settles.splice(0).map((settle) => settle(delivered)))
    },
  }
}
