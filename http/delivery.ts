import type { ServerResponse } from 'node:http'
import type { Context } from 'hono'
import type { AppEnv } from './env.ts'

/** Ends a charge once it is known whether the answer reached the caller (InvocationResult.settle). */
export type Settle = (delivered: boolean) => Promise<void>

/**
 * Settles a charge by what becomes of this request's response. On a Node server
 * (@hono/node-server passes its `ServerResponse` as `c.env.outgoing`): delivered once every byte
 * was handed to the kernel; not delivered on 'close' before that (the client went away, a write
 * failed). Called in process (no Node response: `app.request`, `app.fetch`), the Response handed
 * back is the delivery, so the charge is settled as delivered before it is returned. Call it once
 * the response is built and only then: a failure before that is settled as not delivered by the
 * route itself.
 *
 * When `end()` hands the whole response to the kernel at once (the socket took it: the usual case
 * for an answer that fits its send buffer), the charge is settled right there, inside that call,
 * not on the 'finish' event a tick later: a process killed in between has delivered an answer
 * whose debit nothing records (core/keys/delivery-journal.ts is appended in this same step), and
 * on a loaded machine the ticks queued ahead of 'finish' make that gap far wider than this one.
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
  let outcome: boolean | undefined
  const settleOnce = (delivered: boolean) => {
    if (outcome !== undefined) return
    outcome = delivered
    void settle(delivered)
  }
  const onFinish = () => settleOnce(true)
  const end = outgoing.end
  outgoing.end = function endAndSettle(this: typeof outgoing, ...args: unknown[]) {
    const result = (end as (...a: unknown[]) => unknown).apply(this, args)
    outgoing.end = end
    if (handedToKernel(outgoing)) settleOnce(true)
    return result as typeof outgoing
  } as typeof outgoing.end
  outgoing.once('finish', onFinish)
  // 'close' follows the delivery of a delivered response: the first outcome stands.
  outgoing.once('close', () => settleOnce(outgoing.writableFinished))
}

/**
 * Whether an ended response has no byte left in Node's buffers: the socket wrote it all through
 * (its write completed synchronously). Computed, not `writableFinished`, which Node 22 and later
 * set only when the 'finish' callback runs, a tick later.
 */
function handedToKernel(outgoing: ServerResponse): boolean {
  const socket = outgoing.socket
  return (
    outgoing.writableEnded &&
    outgoing.writableLength === 0 &&
    socket !== null &&
    !socket.destroyed &&
    socket.writableLength === 0
  )
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
