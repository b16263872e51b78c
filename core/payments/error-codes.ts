/**
 * Why a payment was refused (spec: Errors, 402 sub-cases). Sent as `errorCode` beside `error` in a
 * rejecting 402 and as `invalidReason` / `errorReason` by the facilitator routes. The list and its
 * meaning are documented in ERROR_CODES.md; keep the two in step.
 */
export const PAYMENT_ERROR_CODES = [
  'malformed_payload',
  'unsupported_version',
  'unsupported_scheme',
  'unsupported_network',
  'wrong_asset',
  'wrong_recipient',
  'insufficient_amount',
  'not_yet_valid',
  'expired',
  'valid_before_too_far',
  'invalid_signature',
  'nonce_replay',
  'insufficient_funds',
  'settlement_failed',
  'settlement_timeout',
  'facilitator_unavailable',
  'facilitator_rejected',
  'insufficient_balance',
  'invalid_requirements',
  'fee_payer_mismatch',
  'fee_payer_not_isolated',
  'extra_signers',
  'lookup_tables_unsupported',
  'instruction_layout',
  'compute_budget_too_high',
] as const

export type PaymentErrorCode = (typeof PAYMENT_ERROR_CODES)[number]

/** The human-readable `error` text that goes with each code in a rejecting 402. */
export const PAYMENT_ERROR_MESSAGES: Readonly<Record<PaymentErrorCode, string>> = {
  malformed_payload: 'Payment header is not a valid base64-encoded x402 payment payload',
  unsupported_version: 'Unsupported x402 version',
  unsupported_scheme: 'Unsupported payment scheme (only exact is accepted)',
  unsupported_network: 'Unsupported chain or network',
  wrong_asset: 'Payment is not in the accepted USDC contract for this network',
  wrong_recipient: 'Payment recipient is not the service payTo address',
  insufficient_amount: 'Payment amount is below the price of this request',
  not_yet_valid: 'Payment authorization is not valid yet (validAfter is in the future)',
  expired: 'Payment authorization has expired (validBefore passed)',
  valid_before_too_far: 'Payment authorization validBefore is more than 5 minutes ahead',
  invalid_signature: 'Payment signature is invalid',
  nonce_replay: 'Payment nonce was already used',
  insufficient_funds: 'Payer balance is too low to settle the payment',
  settlement_failed: 'Payment settlement failed',
  settlement_timeout: 'Payment settlement was not confirmed in time',
  facilitator_unavailable: 'Payment facilitator is unavailable',
  facilitator_rejected: 'Payment facilitator rejected the payment',
  insufficient_balance: 'The API key balance does not cover this call; pay it with x402 or top up the key',
  invalid_requirements:
    'Payment requirements are not ones this service issues (its own resource at its price)',
  fee_payer_mismatch: "Solana transaction fee payer is not the service's fee payer (extra.feePayer)",
  fee_payer_not_isolated:
    "Solana transaction uses the service's fee payer in an instruction (authority, source or other account)",
  extra_signers: 'Solana transaction requires signers other than the payer and the fee payer',
  lookup_tables_unsupported:
    'Solana transaction uses address lookup tables, which this service does not accept',
  instruction_layout:
    'Solana transaction instructions are not the exact scheme layout (compute limit, compute price, TransferChecked, optional memo)',
  compute_budget_too_high: 'Solana transaction compute unit limit or price is above the accepted maximum',
}
