import { createHash } from 'node:crypto'
import { createFacilitatorSettler, type FacilitatorClient } from '../facilitator/client.ts'
import type { NonceStore } from '../ledger/nonce-store.ts'
import type { PaymentConfig } from '../networks.ts'
import type { DecodedPayment } from '../payment-header.ts'
import type { FundsCheck, PaymentScheme } from '../payment-schemes.ts'
import type { PaymentRequirement } from '../requirements.ts'
import { reject, toCanonicalPayload, toStandardRequirement, type VerifyResult } from '../verify-result.ts'
import type { SolanaRpc } from './rpc.ts'
import type { SvmSettler } from './settle.ts'
import { verifySvmPayment } from './verify.ts'

export interface OwnFeePayerSvmSchemeOptions {
  config: PaymentConfig
  nonceStore: NonceStore
  /** The service's own fee payer address: the challenge's `extra.feePayer`. */
  feePayer: string
  /** The RPC that tells whether a payment's blockhash is still valid. */
  rpc: Pick<SolanaRpc, 'isBlockhashValid'>
  /** Co-signs and sends the payments that name this fee payer. */
  settler?: SvmSettler
  /** Settles the payments that name another fee payer (verified before this key was configured). */
  facilitator?: FacilitatorClient
  /** Simulates the payer's transaction before the call runs. */
  fundsCheck?: FundsCheck
}

/**
 * The Solana `exact` mechanism when the service is its own fee payer (SOLANA_FEE_PAYER_KEY and
 * SOLANA_RPC_URL): payments are verified here (svm/verify.ts) and co-signed and sent by the
 * service (svm/settle.ts); the sweep asks the cluster whether an interrupted one landed.
 */
export function ownFeePayerSvmScheme(options: OwnFeePayerSvmSchemeOptions): PaymentScheme {
  const { config, nonceStore, settler, fundsCheck } = options
  const solana = { feePayer: options.feePayer, rpc: options.rpc }
  const facilitatorSettler = options.facilitator ? createFacilitatorSettler(options.facilitator) : undefined
  return {
    verify: (payment, requirement, { now, claimNonce }) =>
      verifySvmPayment({ config, nonceStore, solana }, { payment, requirement, now, claimNonce }),
    ...(settler
      ? {
          settle: (payment) =>
            settler.handles(payment) || !facilitatorSettler
              ? settler.settle(payment)
              : facilitatorSettler.settle(payment),
          authorizationUsed: async (payment) =>
            settler.handles(payment) ? settler.transactionLanded(payment) : undefined,
        }
      : {}),
    ...(fundsCheck ? { fundsCheck } : {}),
  }
}

export interface FacilitatedSvmSchemeOptions {
  config: PaymentConfig
  nonceStore: NonceStore
  facilitator: FacilitatorClient
}

/**
 * The Solana `exact` mechanism when a facilitator is the fee payer: it verifies and settles the
 * payment, and its answer is nonce-claimed here by the transaction's hash so one payment cannot
 * buy two calls.
 */
export function facilitatedSvmScheme(options: FacilitatedSvmSchemeOptions): PaymentScheme {
  const settler = createFacilitatorSettler(options.facilitator)
  return {
    verify: (payment, requirement, { now, claimNonce }) =>
      verifyThroughFacilitator(options, payment, requirement, now, claimNonce),
    settle: (payment) => settler.settle(payment),
  }
}

async function verifyThroughFacilitator(
  deps: FacilitatedSvmSchemeOptions,
  payment: DecodedPayment,
  requirement: PaymentRequirement,
  now: Date,
  claimNonce: boolean,
): Promise<VerifyResult> {
  if (payment.scheme !== 'exact')
    return reject('unsupported_scheme', `scheme ${payment.scheme} is not accepted`)
  const transaction = payment.payload.transaction
  if (typeof transaction !== 'string' || transaction.length === 0) {
    return reject('malformed_payload', 'Solana payload needs a base64 transaction')
  }
  const paymentPayload = toCanonicalPayload(requirement, { transaction })
  const paymentRequirements = toStandardRequirement(requirement)
  const answer = await deps.facilitator.verify(paymentPayload, paymentRequirements)
  if (!answer.isValid) return reject(answer.invalidReason, answer.invalidMessage, answer.payer)
  const digest = `0x${createHash('sha256').update(transaction).digest('hex')}`
  const expiresAt = new Date(now.getTime() + deps.config.replayWindowSeconds * 1000)
  const network = requirement.network.network
  if (claimNonce && !(await deps.nonceStore.claim(network, digest, answer.payer, expiresAt))) {
    return reject('nonce_replay', 'this Solana transaction was already used', answer.payer)
  }
  return {
    isValid: true,
    paymentId: `${network}:${answer.payer}:${digest}`,
    kind: 'solana',
    network,
    payer: answer.payer,
    amount: requirement.amount,
    price: requirement.amount,
    requirement,
    paymentPayload,
    paymentRequirements,
  }
}
