import { createRequire } from 'node:module'
import type * as Undici from 'undici'

/**
 * The undici package (per-address pinned agents for webhook deliveries) without its side effect:
 * loading it installs its own Agent as the process-wide dispatcher of Node's built-in fetch
 * (undici lib/global.js) when none is set yet, which changes every other outbound call (Node 20's
 * fetch through undici 7's dispatcher refuses requests such as the Solana RPC client's, whose
 * content-length header it rejects). Touching `Headers` first loads Node's own fetch, which sets
 * Node's dispatcher, so the package finds one and leaves it alone.
 */
function loadWithoutGlobalDispatcher(): typeof Undici {
  void globalThis.Headers
  return createRequire(import.meta.url)('undici') as typeof Undici
}

export const undici = loadWithoutGlobalDispatcher()
