import { Hono } from 'hono'
import { describeOperation } from '../../core/discovery/describe-operation.ts'
import { issuedRequirementCheck, x402DiscoveryOf } from '../../core/discovery/x402-discovery.ts'
import type { ApiKeyService } from '../../core/keys/index.ts'
import { keyUsageView } from '../../core/keys/index.ts'
import { type MaintenanceSwitch, maintenanceError } from '../../core/maintenance/index.ts'
import type { AnyOperation } from '../../core/operations/index.ts'
import {
  settleFacilitatorRequest,
  verifyFacilitatorRequest,
} from '../../core/payments/facilitator/endpoints.ts'
import { purchaseKeyUpgrade } from '../../core/payments/key-upgrade.ts'
import type { X402Payments } from '../../core/payments/payment-gate.ts'
import { failedSettleResponse } from '../../core/payments/settle-result.ts'
import { x402DocumentWithBazaar } from '../bazaar.ts'
import type { AppEnv } from '../env.ts'
import { settlementHeaders } from '../payment-headers.ts'
import { paymentHeader, readJsonBody } from '../request.ts'

export interface PaymentRoutesOptions {
  keys: ApiKeyService
  x402?: X402Payments
  /** While maintenance is on, key top-ups (a priced route) answer 503 like every operation. */
  maintenance?: Pick<MaintenanceSwitch, 'current'>
  operations: readonly AnyOperation[]
  publicBaseUrl: string
  /** Records a paid top-up in the key's audit trail (it is not an operation, so the pipeline does not). */
  recordKeyChange?: (keyId: string, action: string, detail: Record<string, unknown>) => Promise<void>
}

/** How a client sends payments and picks a tier over HTTP (added to the discovery document). */
const HTTP_PAYMENT_FIELDS = {
  paymentHeaders: ['PAYMENT-SIGNATURE', 'X-PAYMENT'],
  qualityHeader: 'X-Response-Quality',
}

/**
 * Payment routes: the public x402 discovery document, the service's own facilitator routes
 * (HTTP only) and key top-ups paid with x402.
 */
export function paymentRoutes(options: PaymentRoutesOptions) {
  const { x402, keys } = options
  const isIssued = issuedRequirementCheck(options.operations, options.publicBaseUrl)
  const discovery = x402DiscoveryOf(options.operations)
  const withBazaar = x402DocumentWithBazaar(options.operations.map(describeOperation))
  return new Hono<AppEnv>()
    .get('/.well-known/x402.json', (c) => {
      if (!x402) return c.json({ x402Version: 2, enabled: false, note: 'x402 payments are not configured' })
      return c.json({ ...withBazaar(discovery(x402.config, options.publicBaseUrl)), ...HTTP_PAYMENT_FIELDS })
    })
    .post('/x402/verify', async (c) => {
      if (!x402) return c.json({ isValid: false, invalidReason: 'unsupported_network' }, 400)
      return c.json(await verifyFacilitatorRequest(x402, await readJsonBody(c), isIssued))
    })
    .post('/x402/settle', async (c) => {
      if (!x402) return c.json(failedSettleResponse('unsupported_network'), 400)
      return c.json(await settleFacilitatorRequest(x402, await readJsonBody(c), isIssued))
    })
    .post('/v1/keys/upgrade/:tier', async (c) => {
      const caller = await keys.authenticate(c.req.header('x-api-key'))
      if (options.maintenance && !(caller.kind === 'key' && caller.role === 'admin')) {
        const state = await options.maintenance.current()
        if (state.enabled) throw maintenanceError(state)
      }
      const result = await purchaseKeyUpgrade(
        { keys, x402 },
        { caller, tier: c.req.param('tier'), payment: paymentHeader(c), resourceUrl: c.req.url },
      )
      for (const [name, value] of Object.entries(settlementHeaders(result.settlement))) c.header(name, value)
      await options.recordKeyChange?.(result.record.id, 'key.upgrade', {
        tier: result.record.tier,
        credited_micros: result.credited.toString(),
        network: result.settlement.response.network,
        transaction: result.settlement.response.transaction,
      })
      return c.json({ ...keyUsageView(result.record), credited_micros: Number(result.credited) })
    })
}
