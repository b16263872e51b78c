import type { FundsCheck } from '../payment-schemes.ts'
import type { VerifiedPayment } from '../verify-result.ts'
import type { SolanaRpc } from './rpc.ts'

/**
 * The funds check for Solana payments the service settles itself (X402_FUNDS_CHECK):
 * before the call runs, the payer's transaction is simulated as it stands (signatures not
 * verified, as the x402 facilitator simulates, scheme_exact_svm.md §2.2.3). A payer whose token
 * account lacks the amount (SPL Token error 1) or does not exist is refused with
 * `insufficient_funds`, a blockhash that expired meanwhile with `expired`, any other failure with
 * `settlement_failed`, so nothing runs for a payment that cannot settle. An RPC that does not
 * answer does not refuse the payment (settlement still decides), as on EVM.
 */
export function createSvmFundsCheck(options: {
  rpc: Pick<SolanaRpc, 'simulateTransaction'>
  /** Whether the service settles this payment itself (its own fee payer). */
  handles: (payment: VerifiedPayment) => boolean
}): FundsCheck {
  return async (payment) => {
    const transaction = payment.paymentPayload.payload.transaction
    if (!options.handles(payment) || typeof transaction !== 'string') return undefined
    let err: string | null
    try {
      err = (await options.rpc.simulateTransaction(transaction)).err
    } catch {
      return undefined
    }
    if (err === null) return undefined
    if (err === 'custom:1' || err === 'AccountNotFound' || err === 'InvalidAccountData') {
      return { code: 'insufficient_funds', message: `the payer cannot pay: simulation failed with ${err}` }
    }
    if (err === 'BlockhashNotFound')
      return { code: 'expired', message: 'the blockhash expired before the call ran' }
    return { code: 'settlement_failed', message: `the payment transaction would fail: ${err}` }
  }
}
