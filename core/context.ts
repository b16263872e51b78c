import type { CheckStore } from './checks/check-store.ts'
import type { CompanySources } from './checks/company-sources.ts'
import type { Quality } from './operations/define.ts'
import type { SanctionsService } from './sanctions/sanctions-service.ts'
import type { SanctionsNameScreen } from './scoring/ports.ts'

/** spec: API key tiers. */
export type Tier = 'sandbox' | 'free' | 'starter' | 'pro' | 'enterprise'

/** Who is calling: a key holder, an x402 payer, or nobody yet. */
export type Caller =
  | {
      kind: 'key'
      keyId: string
      tier: Tier
      /** live keys get real data; sandbox keys get mocks. */
      mode: 'live' | 'sandbox'
      role: 'customer' | 'admin'
    }
  | { kind: 'x402'; payer: string; network: string }
  | { kind: 'anonymous' }

export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

/**
 * Everything a check may use, injected (CONVENTIONS 2). Grows as sources land;
 * the composition root in `server/` builds it once.
 */
export interface ServiceDeps {
  /** Company registers, VIES and domain sources for entity, risk, reputation and KYB checks. */
  companySources?: CompanySources
  /** Name screening against the sanctions lists; absent: sanctions findings are unavailable. */
  sanctions?: SanctionsNameScreen
  /** The sanctions lists held in memory (screen by name, wallet address, registration); absent: not loaded. */
  sanctionsLists?: SanctionsService
  /** Stored company checks (history, cached tier); absent: nothing is stored. */
  checks?: CheckStore
}

export interface OperationContext {
  caller: Caller
  quality: Quality
  clock: Clock
  requestId: string
  deps: ServiceDeps
}
