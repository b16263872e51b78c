import { z } from 'zod'
import { findPaymentNetwork, type PaymentConfig } from '../networks.ts'
import type { X402Payments } from '../payment-gate.ts'
import type { PaymentRequirement } from '../requirements.ts'
import { buildPaymentResponse, failedSettleResponse, type PaymentResponse } from '../settle-result.ts'
import type { PaymentSource } from '../verify-payment.ts'
import { type RejectedPayment, reject, toVerifyResponse } from '../verify-result.ts'

const RequirementsSchema = z.looseObject({
  scheme: z.string().min(1).describe('Payment scheme, exact.'),
  network: z.string().min(1).describe('CAIP-2 id or x402 v1 network name.'),
  amount: z
    .string()
    .regex(/^\d{1,30}$/)
    .optional()
    .describe('v2 amount, 6-decimal units.'),
  maxAmountRequired: z
    .string()
    .regex(/^\d{1,30}$/)
    .optional()
    .describe('v1 amount, 6-decimal units.'),
  asset: z.string().min(1).describe('USDC contract or mint.'),
  payTo: z.string().min(1).describe('Recipient; must be this service.'),
  resource: z.string().optional().describe('v1 resource URL.'),
  description: z.string().optional().describe('What is paid for.'),
  mimeType: z.string().optional().describe('Mime type of the resource.'),
})

const FacilitatorRequestSchema = z.looseObject({
  x402Version: z.number().int().optional().describe('x402 version of the request.'),
  paymentPayload: z.record(z.string(), z.unknown()).describe('The payment payload as a client built it.'),
  paymentRequirements: RequirementsSchema.describe('The requirement the payment answers.'),
})

/** Whether a requirement (resource URL, amount) is one the service itself issues. */
export type IssuedCheck = (resourceUrl: string, amount: bigint) => boolean

export type FacilitatorRequest =
  | { ok: true; source: PaymentSource; requirements: PaymentRequirement[] }
  | (RejectedPayment & { ok: false })

/**
 * Reads the body of the service's own facilitator routes `/x402/verify` and `/x402/settle`
 * (x402 facilitator request `{ x402Version, paymentPayload, paymentRequirements }`; spec:
 * Facilitator routes, same values as invalidReason). Only payments to this service's payTo in
 * the configured USDC are accepted. Verify with `claimNonce: false` on `/x402/verify`.
 */
export function parseFacilitatorRequest(
  config: PaymentConfig,
  body: unknown,
  isIssued: IssuedCheck = () => true,
): FacilitatorRequest {
  const parsed = FacilitatorRequestSchema.safeParse(body)
  if (!parsed.success) {
    return { ok: false, ...reject('malformed_payload', 'body needs paymentPayload and paymentRequirements') }
  }
  const req = parsed.data.paymentRequirements
  const network = findPaymentNetwork(config, req.network)
  if (!network)
    return { ok: false, ...reject('unsupported_network', `network ${req.network} is not accepted`) }
  if (req.scheme !== 'exact')
    return { ok: false, ...reject('unsupported_scheme', `scheme ${req.scheme} is not accepted`) }
  if (req.asset.toLowerCase() !== network.asset.toLowerCase()) {
    return { ok: false, ...reject('wrong_asset', `asset ${req.asset} is not ${network.asset}`) }
  }
  if (req.payTo.toLowerCase() !== network.payTo.toLowerCase()) {
    return { ok: false, ...reject('wrong_recipient', 'payTo is not this service') }
  }
  const amount = BigInt(req.amount ?? req.maxAmountRequired ?? '0')
  if (amount <= 0n)
    return { ok: false, ...reject('malformed_payload', 'paymentRequirements needs a positive amount') }
  const resource = parsed.data.paymentPayload.resource as { url?: unknown } | undefined
  // A v1 requirement names its resource, a v2 payload does too: every one given must be issued here.
  const named = [req.resource, typeof resource?.url === 'string' ? resource.url : undefined].filter(
    (url): url is string => url !== undefined,
  )
  const resourceUrl = named[0] ?? ''
  if (named.length === 0 || !named.every((url) => isIssued(url, amount))) {
    return {
      ok: false,
      ...reject(
        'invalid_requirements',
        'paymentRequirements are not ones this service issues: a resource of this service at its price (see /.well-known/x402.json)',
      ),
    }
  }
  return {
    ok: true,
    source: { payload: parsed.data.paymentPayload },
    requirements: [
      {
        network,
        amount,
        resourceUrl,
        description: req.description ?? '',
        mimeType: req.mimeType ?? 'application/json',
        maxTimeoutSeconds: config.maxTimeoutSeconds,
      },
    ],
  }
}

/**
 * `POST /x402/verify`: the same checks as a paid call, without using the nonce up (a client may
 * verify first and pay later).
 */
export async function verifyFacilitatorRequest(x402: X402Payments, body: unknown, isIssued: IssuedCheck) {
  const request = parseFacilitatorRequest(x402.config, body, isIssued)
  if (!request.ok) return toVerifyResponse(request)
  const result = await x402.verifier.verify(request.source, request.requirements, { claimNonce: false })
  return toVerifyResponse(result)
}

/**
 * `POST /x402/settle`: verifies (claiming the nonce), writes the ledger row, then settles it once,
 * so a payment settled here can never pay for a call too, nor be settled twice.
 */
export async function settleFacilitatorRequest(
  x402: X402Payments,
  body: unknown,
  isIssued: IssuedCheck,
): Promise<PaymentResponse> {
  const request = parseFacilitatorRequest(x402.config, body, isIssued)
  if (!request.ok) return failedSettleResponse(request.invalidReason)
  const verified = await x402.verifier.verify(request.source, request.requirements)
  if (!verified.isValid) return failedSettleResponse(verified.invalidReason, verified.payer)
  const ledgerId = await x402.ledger.reserve(verified, 'x402_settle', null)
  const outcome = await x402.settlement.settleReserved(ledgerId, verified)
  return buildPaymentResponse(outcome.result)
}
