import {
  createFacilitatorSettler,
  createFallbackSettler,
  type FacilitatorClient,
} from '../facilitator/client.ts'
import type { NonceStore } from '../ledger/nonce-store.ts'
import type { PaymentConfig } from '../networks.ts'
import type { FundsCheck, PaymentScheme } from '../payment-schemes.ts'
import type { Settler } from '../settle-result.ts'
import type { OnChainSettler } from './settle.ts'
import { verifyEvmPayment } from './verify.ts'

export interface ExactEvmSchemeOptions {
  config: PaymentConfig
  nonceStore: NonceStore
  /** Settles through an x402 facilitator, with `onChain` as its circuit-breaker fallback when both are set. */
  facilitator?: FacilitatorClient
  /** Settles on chain with the operator's key, and tells the sweep whether an authorization was used. */
  onChain?: OnChainSettler
  /** The payer's balance and the authorization's state, read before the call runs. */
  fundsCheck?: FundsCheck
}

/**
 * Who settles EVM payments: the facilitator with on-chain settlement as its circuit-breaker
 * fallback when both are configured, else whichever one is; undefined when neither is.
 */
export function evmSettler(
  options: Pick<ExactEvmSchemeOptions, 'facilitator' | 'onChain'>,
): Settler | undefined {
  const { facilitator, onChain } = options
  if (facilitator && onChain) {
    return createFallbackSettler({ primary: createFacilitatorSettler(facilitator), fallback: onChain })
  }
  return facilitator ? createFacilitatorSettler(facilitator) : onChain
}

/**
 * The EVM `exact` mechanism (EIP-3009 `transferWithAuthorization` in USDC): payments are verified
 * here (signature, window, amount, nonce; evm/verify.ts) and settled by `evmSettler`.
 */
export function exactEvmScheme(options: ExactEvmSchemeOptions): PaymentScheme {
  const settler = evmSettler(options)
  const { onChain, fundsCheck } = options

  return {
    verify: (payment, requirement, { now, claimNonce }) =>
      verifyEvmPayment(options, { payment, requirements: [requirement], now, claimNonce }),
    ...(settler ? { settle: (payment) => settler.settle(payment) } : {}),
    ...(fundsCheck ? { fundsCheck } : {}),
    // "Landed" means this payment's transfer to payTo is on chain, not merely its nonce used (a
    // cancelAuthorization or another transfer also uses it): false then, so it is never SETTLED.
    ...(onChain
      ? {
          authorizationUsed: async (payment) => {
            const landed = await onChain.paymentLanded(payment)
            return landed === undefined ? undefined : landed === 'paid'
          },
        }
      : {}),
  }
}
