import type { Caller, Clock, OperationContext, ServiceDeps } from '../context.ts'
import { ServiceError } from '../errors.ts'
import { type ApiKeyService, tierAtLeast } from '../keys/api-keys.ts'
import type { UsageRecorder } from '../usage/usage-recorder.ts'
import { type Charge, freeCharge, type PaymentGate } from './charging.ts'
import { type AnyOperation, QUALITIES, type Quality } from './define.ts'
import { parseWith } from './parse.ts'

/** What an adapter (HTTP or MCP) hands to the pipeline, already lifted out of its transport. */
export interface InvocationRequest {
  apiKey?: string
  input: unknown
  /** Raw X-Response-Quality value, if any. */
  quality?: string
  payment?: unknown
  resourceUrl: string
  requestId: string
}

export interface InvocationResult {
  output: unknown
  headers: Record<string, string>
  meta: Record<string, unknown>
  charge: Charge
}

export interface OperationRuntime {
  keys: ApiKeyService
  payments: PaymentGate
  usage: UsageRecorder
  deps: ServiceDeps
  clock: Clock
}

function parseQuality(raw: string | undefined): Quality {
  if (raw === undefined || raw === '') return 'fresh'
  const value = raw.trim().toLowerCase()
  if ((QUALITIES as readonly string[]).includes(value)) return value as Quality
  throw new ServiceError('validation_failed', 'invalid request', {
    fields: [{ field: 'X-Response-Quality', message: 'must be one of cached, fresh, enhanced' }],
  })
}

function checkAccess(operation: AnyOperation, caller: Caller): 'mock' | 'run' {
  if (caller.kind !== 'key' || caller.role === 'admin') return 'run'
  if (caller.mode === 'sandbox') {
    if (operation.access.sandbox === 'mock') return 'mock'
    throw new ServiceError(
      'forbidden',
      'sandbox keys get mock data for entity, risk and KYB checks only; this operation needs a live key or x402 payment',
    )
  }
  if (operation.access.minTier && !tierAtLeast(caller.tier, operation.access.minTier)) {
    throw new ServiceError('forbidden', `this operation needs the ${operation.access.minTier} tier or higher`)
  }
  return 'run'
}

/**
 * The one path every operation call takes, whatever the transport:
 * authenticate -> validate -> access -> charge -> run -> settle (or refund) -> record usage.
 */
export async function invokeOperation(
  runtime: OperationRuntime,
  operation: AnyOperation,
  request: InvocationRequest,
): Promise<InvocationResult> {
  const started = performance.now()
  let caller: Caller = { kind: 'anonymous' }
  let charge: Charge | undefined
  let status = 500
  try {
    caller = await runtime.keys.authenticate(request.apiKey)
    const quality = parseQuality(request.quality)
    const input = parseWith(operation.input, request.input)
    const access = checkAccess(operation, caller)
    if (access === 'mock' && operation.mock) {
      charge = freeCharge(caller, 'sandbox')
      status = 200
      return { output: operation.mock(input), headers: {}, meta: {}, charge }
    }
    charge = await runtime.payments.open({
      operation,
      caller,
      quality,
      payment: request.payment,
      resourceUrl: request.resourceUrl,
    })
    const ctx: OperationContext = {
      caller: charge.caller,
      quality,
      clock: runtime.clock,
      requestId: request.requestId,
      deps: runtime.deps,
    }
    let output: unknown
    try {
      output = await operation.run(input, ctx)
    } catch (error) {
      await charge.cancel()
      throw error
    }
    await charge.complete()
    status = 200
    return { output, headers: charge.headers, meta: charge.meta, charge }
  } catch (error) {
    status = statusOf(error)
    throw error
  } finally {
    const payer = charge?.caller ?? caller
    if (payer.kind !== 'anonymous') {
      await runtime.usage.record({
        keyId: payer.kind === 'key' ? payer.keyId : null,
        operation: operation.id,
        httpStatus: status,
        paidWith: status === 200 ? (charge?.paidWith ?? 'free') : 'free',
        costMicros: status === 200 ? (charge?.amount ?? 0n) : 0n,
        latencyMs: Math.round(performance.now() - started),
      })
    }
  }
}

const STATUS_BY_CODE: Record<ServiceError['code'], number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  validation_failed: 422,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
}

/** The HTTP status a failure maps to (also used for usage records of MCP calls). */
export function statusOf(error: unknown): number {
  if (error instanceof ServiceError) return STATUS_BY_CODE[error.code]
  if (error instanceof Error && error.name === 'PaymentRequiredError') return 402
  return 500
}
