import type { KeyCaller } from '../core/context.ts'

/** Variables every request carries in this app. */
export type AppEnv = { Variables: { requestId: string; caller?: KeyCaller } }
