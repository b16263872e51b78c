import type { Hono } from 'hono'
import type { Clock } from '../core/context.ts'
import type { ApiKeyService } from '../core/keys/index.ts'
import { keyUsageView } from '../core/keys/index.ts'
import type { AnyOperation } from '../core/operations/define.ts'
import { type FinancialHealthDeps, financialHealth } from '../core/payments/financial-health.ts'
import {
  buildPaymentResponse,
  buildX402Discovery,
  KEY_UPGRADE_OPERATION_ID,
  parseFacilitatorRequest,
  toVerifyResponse,
} from '../core/payments/index.ts'
import { purchaseKeyUpgrade } from '../core/payments/key-upgrade.ts'
import type { X402Payments } from '../core/payments/payment-gate.ts'
import type { Db } from '../core/store/database.ts'
import type { AppEnv } from './app.ts'
import { paymentHeader, readJsonBody, requireKey } from './request.ts'

export interface PaymentRoutesOptions {
  db: Db
  keys: ApiKeyService
  clock: Clock
  x402?: X402Payments
  operations: readonly AnyOperation[]
  publicBaseUrl: string
  financial: Omit<FinancialHealthDeps, 'db' | 'ledger'>
}

/**
 * Payment routes: the public x402 discovery document, the service's own facilitator routes,
 * key top-ups paid with x402, and financial health.
 */
export function mountPaymentRoutes(app: Hono<AppEnv>, options: PaymentRoutesOptions) {
  const { x402, keys } = options

  app.get('/.well-known/x402.json', (c) => {
    if (!x402) return c.json({ x402Version: 2, enabled: false, note: 'x402 payments are not configured' })
    const routes = Object.fromEntries(
      options.operations.map((operation) => [operation.id, operation.http] as const),
    ) as Record<string, { method: 'GET' | 'POST'; path: string }>
    routes[KEY_UPGRADE_OPERATION_ID] = { method: 'POST', path: '/v1/keys/upgrade/{tier}' }
    const prices = Object.fromEntries(
      options.operations.flatMap((operation) =>
        operation.price ? [[operation.id, operation.price] as const] : [],
      ),
    )
    return c.json(buildX402Discovery({ config: x402.config, baseUrl: options.publicBaseUrl, routes, prices }))
  })

  // The service's own facilitator routes: same checks as a paid call; /verify never uses the nonce up.
  app.post('/x402/verify', async (c) => {
    if (!x402) return c.json({ isValid: false, invalidReason: 'unsupported_network' }, 400)
    const request = parseFacilitatorRequest(x402.config, await readJsonBody(c))
    if (!request.ok) return c.json(toVerifyResponse(request))
    const result = await x402.verifier.verify(request.source, request.requirements, { claimNonce: false })
    return c.json(toVerifyResponse(result))
  })

  app.post('/x402/settle', async (c) => {
    if (!x402)
      return c.json({ success: false, errorReason: 'unsupported_network', transaction: '', network: '' }, 400)
    const request = parseFacilitatorRequest(x402.config, await readJsonBody(c))
    if (!request.ok) {
      return c.json({
        success: false,
        errorReason: request.invalidReason,
        transaction: '',
        network: '',
        payer: '',
      })
    }
    const verified = await x402.verifier.verify(request.source, request.requirements)
    if (!verified.isValid) {
      return c.json({
        success: false,
        errorReason: verified.invalidReason,
        transaction: '',
        network: '',
        payer: verified.payer ?? '',
      })
    }
    const ledgerId = await x402.ledger.reserve(verified, 'x402_settle', null)
    const outcome = await x402.settlement.settleReserved(ledgerId, verified)
    return c.json(buildPaymentResponse(outcome.result))
  })

  app.post('/v1/keys/upgrade/:tier', async (c) => {
    const caller = await keys.authenticate(c.req.header('x-api-key'))
    const result = await purchaseKeyUpgrade(
      { db: options.db, keys, x402, clock: options.clock },
      { caller, tier: c.req.param('tier'), payment: paymentHeader(c), resourceUrl: c.req.url },
    )
    for (const [name, value] of Object.entries(result.headers)) c.header(name, value)
    return c.json({ ...keyUsageView(result.record), credited_micros: Number(result.credited) })
  })

  app.get('/v1/financial/health', async (c) => {
    const caller = await requireKey(keys, c)
    return c.json(
      await financialHealth({ db: options.db, ledger: x402?.ledger, ...options.financial }, caller),
    )
  })
}
