import {
  createFacilitatorSettler,
  createFallbackSettler,
  type FacilitatorClient,
} from './facilitator-client.ts'
import type { OnChainSettler } from './onchain-settler.ts'
import type { Settler } from './settlement.ts'

/**
 * Which settler x402 payments use: the facilitator with on-chain settlement as its
 * circuit-breaker fallback when both are configured, else whichever one is. Throws when x402 is
 * on but nothing can settle, so a misconfigured server stops at start-up instead of serving
 * calls it can never be paid for.
 */
export function chooseSettler(options: {
  facilitator?: FacilitatorClient
  onChain?: OnChainSettler
  /** The RPC variables of the enabled networks that are unset, to name in the message. */
  rpcVariables?: readonly string[]
}): Settler {
  const { facilitator, onChain } = options
  const rpc = options.rpcVariables?.length
    ? options.rpcVariables.join(' and ')
    : 'the RPC URL of each network'
  if (facilitator && onChain) {
    return createFallbackSettler({ primary: createFacilitatorSettler(facilitator), fallback: onChain })
  }
  if (facilitator) return createFacilitatorSettler(facilitator)
  if (onChain) return onChain
  throw new Error(
    `x402 is on (X402_PAY_TO) but nothing can settle: set X402_FACILITATOR_URL, or SETTLEMENT_PRIVATE_KEY with ${rpc}`,
  )
}
