import type { AnswerReceipt } from '../core/evidence/answer-receipt.ts'
import { encodeBase64Json } from '../core/payments/challenge.ts'
import type { Receipt, SettlementReceipt } from '../core/payments/charge.ts'

/** `PAYMENT-REQUIRED` header value: base64 JSON of the x402 v2 PaymentRequired object. */
export function paymentRequiredHeader(paymentRequired: object): string {
  return encodeBase64Json(paymentRequired)
}

/** The success headers of an x402 payment (spec: x402 details). */
export function settlementHeaders(settlement: SettlementReceipt): Record<string, string> {
  const paid = { 'X-Payment-Verified': 'true', 'X-Payment-Amount': settlement.amount.toString() }
  if (settlement.state === 'pending') {
    // Verified and held: the retry worker settles it before it expires.
    return { ...paid, 'X-Payment-Fallback': 'true', 'X-Payment-Settlement': 'pending' }
  }
  const response = encodeBase64Json(settlement.response)
  return {
    ...paid,
    ...(settlement.fallback ? { 'X-Payment-Fallback': 'true' } : {}),
    'PAYMENT-RESPONSE': response,
    'X-PAYMENT-RESPONSE': response,
  }
}

/** Response headers that say what a call cost: the key debit, or the x402 settlement. */
export function receiptHeaders(receipt: Receipt): Record<string, string> {
  if (receipt.settlement) return settlementHeaders(receipt.settlement)
  if (receipt.paidWith === 'account') {
    return {
      'X-Charged-Amount': receipt.amount.toString(),
      ...(receipt.balanceRemaining === undefined
        ? {}
        : { 'X-Balance-Remaining': receipt.balanceRemaining.toString() }),
    }
  }
  return {}
}

/**
 * The signed receipt of a paid answer: `X-Receipt-Id`, and `X-Receipt` carrying the whole receipt
 * as base64url JSON, so it can be verified offline without another request (GET
 * /v1/receipts/{id} returns the same JSON later).
 */
export function answerReceiptHeaders(receipt: AnswerReceipt): Record<string, string> {
  return {
    'X-Receipt-Id': receipt.receipt_id,
    'X-Receipt': Buffer.from(JSON.stringify(receipt), 'utf8').toString('base64url'),
  }
}
