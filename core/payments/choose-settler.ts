import type { OnChainSettler } from './evm/settle.ts'
import {
  createFacilitatorSettler,
  createFallbackSettler,
  type FacilitatorClient,
} from './facilitator/client.ts'
import type { SettleResult, Settler } from './settle-result.ts'
import type { SvmSettler } from './svm/settle.ts'

/**
 * Which settler x402 payments use: the facilitator with on-chain settlement as its
 * circuit-breaker fallback when both are configured, else whichever one is; Solana payments that
 * name the service's own fee payer go to `solana`, the others as before. Throws when
 * x402 is on but nothing can settle (the EVM networks, when `evmEnabled`), so a misconfigured
 * server stops at start-up instead of serving calls it can never be paid for.
 */
export function chooseSettler(options: {
  facilitator?: FacilitatorClient
  onChain?: OnChainSettler
  solana?: SvmSettler
  /** Whether EVM networks are offered (default true): they need the facilitator or a key. */
  evmEnabled?: boolean
  /** The RPC variables of the enabled networks that are unset, to name in the message. */
  rpcVariables?: readonly string[]
}): Settler {
  const { facilitator, onChain, solana } = options
  const rpc = options.rpcVariables?.length
    ? options.rpcVariables.join(' and ')
    : 'the RPC URL of each network'
  const others: Settler | undefined =
    facilitator && onChain
      ? createFallbackSettler({ primary: createFacilitatorSettler(facilitator), fallback: onChain })
      : facilitator
        ? createFacilitatorSettler(facilitator)
        : onChain
  if (!others && (!solana || options.evmEnabled !== false)) {
    throw new Error(
      `x402 is on (X402_PAY_TO) but nothing can settle: set X402_FACILITATOR_URL, or SETTLEMENT_PRIVATE_KEY with ${rpc}`,
    )
  }
  if (!solana) return others as Settler
  return {
    async settle(payment): Promise<SettleResult> {
      if (solana.handles(payment)) return solana.settle(payment)
      if (others) return others.settle(payment)
      return {
        success: false,
        network: payment.network,
        payer: payment.payer,
        errorReason: 'unsupported_network',
        errorMessage: `nothing settles ${payment.network} payments here`,
        retryable: false,
      }
    },
  }
}
