import type { IncomingMessage, ServerResponse } from 'node:http'
import type { KeyCaller } from '../core/context.ts'

/**
 * Variables every request carries in this app, and the Node request and response that
 * @hono/node-server passes as bindings (absent when the app is called in process).
 */
export type AppEnv = {
  Variables: { requestId: string; caller?: KeyCaller }
  Bindings: { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined
}
