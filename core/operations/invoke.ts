import type { Caller, Clock, Quality } from '../context.ts'
import { QUALITIES } from '../context.ts'
import { PaymentRequiredError, ServiceError } from '../errors.ts'
import { type ApiKeyService, tierAtLeast } from '../keys/api-keys.ts'
import type { RateLimiter, RateLimitState } from '../limits/index.ts'
import { type Charge, freeCharge, type PaymentGate, type Receipt } from '../payments/charge.ts'
import { isDatabaseUnavailable } from '../store/database.ts'
import type { UsageOutcome, UsageRecorder } from '../usage/usage-recorder.ts'
import type { AnyOperation } from './define.ts'
import type { OperationContext, ServiceDeps } from './operation-context.ts'
import { parseWith } from './parse.ts'

/** What an adapter (HTTP or MCP) hands to the pipeline, already lifted out of its transport. */
export interface InvocationRequest {
  apiKey?: string
  /** The operation's input as one object: body or query plus path parameters (REST), or tool arguments (MCP). */
  input: unknown
  /** Raw quality tier asked for, if any. */
  quality?: string
  /** How the adapter names the quality field in errors (`X-Response-Quality` over HTTP). */
  qualityField?: string
  payment?: unknown
  resourceUrl: string
  requestId: string
  /** The client's IP address where the transport knows it: anonymous 402 challenges are limited per address. */
  clientAddress?: string
}

export interface InvocationResult {
  output: unknown
  /** The operation's success status (200, 201 or 204). */
  status: 200 | 201 | 204
  receipt: Receipt
  /** The tightest rate limit of the payer after this call (X-RateLimit-* over HTTP); none for the operator. */
  rateLimit?: RateLimitState
}

export interface OperationRuntime {
  keys: Pick<ApiKeyService, 'authenticate'>
  payments: PaymentGate
  usage: UsageRecorder
  /** Per-key, per-payer and per-IP limits (spec: Limits); absent: nothing is limited. */
  limits?: RateLimiter
  deps: ServiceDeps
  clock: Clock
  /**
   * Tests: every answer is checked against the operation's output schema before it is delivered
   * (an operation whose output does not match its schema fails its test with a 500).
   */
  checkOutputs?: boolean
  /** A write kept after payment failed: the paid answer is still delivered, the failure logged. */
  onWriteError?: (error: unknown, operationId: string) => void
}

/** Reads a quality tier (spec: X-Response-Quality: cached, fresh or enhanced; default fresh). */
export function parseQuality(raw: string | undefined, field = 'X-Response-Quality'): Quality {
  if (raw === undefined || raw === '') return 'fresh'
  const value = raw.trim().toLowerCase()
  if ((QUALITIES as readonly string[]).includes(value)) return value as Quality
  throw new ServiceError('validation_failed', 'invalid request', {
    fields: [{ field, message: 'must be one of cached, fresh, enhanced' }],
  })
}

/** Who may run an operation (spec: Permissions, Sandbox): 'mock' for sandbox mocks, else 'run'. */
export function checkAccess(operation: AnyOperation, caller: Caller): 'mock' | 'run' {
  if (caller.kind !== 'key' || caller.role === 'admin') return 'run'
  if (caller.mode === 'sandbox') {
    if (operation.access.sandbox === 'mock') return 'mock'
    if (operation.access.sandbox === 'refuse') {
      throw new ServiceError(
        'forbidden',
        'sandbox keys get mock data for entity, risk and KYB checks only; this operation needs a live key or x402 payment',
      )
    }
  }
  if (operation.access.minTier && !tierAtLeast(caller.tier, operation.access.minTier)) {
    throw new ServiceError('forbidden', `this operation needs the ${operation.access.minTier} tier or higher`)
  }
  return 'run'
}

/** The outcome a usage row records for a failed call (an HTTP adapter maps it to a status). */
export function outcomeOf(error: unknown): UsageOutcome {
  if (error instanceof ServiceError) return error.code
  if (error instanceof PaymentRequiredError) return 'payment_required'
  return 'internal'
}

/** A database that cannot be reached is a failed dependency (spec: 503 with Retry-After), not a bug. */
export function asDependencyFailure(error: unknown): unknown {
  if (error instanceof ServiceError || !isDatabaseUnavailable(error)) return error
  return new ServiceError('unavailable', 'the database is unavailable; try again shortly', {
    retryAfter: 5,
    cause: error,
  })
}

/** Runs the writes of a paid call in order; one that fails is reported and does not fail the call. */
async function keepWrites(
  writes: readonly (() => Promise<void>)[],
  onError: ((error: unknown) => void) | undefined,
): Promise<void> {
  for (const write of writes) {
    try {
      await write()
    } catch (error) {
      onError?.(error)
    }
  }
}

/** The output, checked against the operation's schema when the runtime asks for it (tests). */
function checkedOutput(runtime: OperationRuntime, operation: AnyOperation, output: unknown): unknown {
  if (!runtime.checkOutputs) return output
  const parsed = operation.output.safeParse(output)
  if (!parsed.success) {
    throw new Error(`operation ${operation.id}: output does not match its schema: ${parsed.error.message}`)
  }
  return output
}

/**
 * The one path every operation call takes, whatever the transport:
 * authenticate -> validate -> access -> charge -> run -> settle (or refund) -> keep what the call
 * produced -> record usage. A free operation (`price: null`) needs a key and never answers 402.
 */
export async function invokeOperation(
  runtime: OperationRuntime,
  operation: AnyOperation,
  request: InvocationRequest,
): Promise<InvocationResult> {
  const started = performance.now()
  let caller: Caller = { kind: 'anonymous' }
  let charge: Charge | undefined
  let receipt: Receipt | undefined
  let outcome: UsageOutcome = 'internal'
  let rateLimit: RateLimitState | undefined
  const limits = runtime.limits
  const admit = async (payer: Caller): Promise<void> => {
    rateLimit = (await limits?.admit(payer)) ?? rateLimit
  }
  try {
    caller = await runtime.keys.authenticate(request.apiKey)
    if (operation.access.tenant && (caller.kind !== 'key' || caller.role === 'admin')) {
      throw new ServiceError('forbidden', 'Tenant context required')
    }
    if (operation.price === null && caller.kind !== 'key') {
      throw new ServiceError('unauthorized', 'an API key is required (X-API-Key)')
    }
    const quality = parseQuality(request.quality, request.qualityField)
    const input = parseWith(operation.input, request.input)
    const status = operation.http.status ?? 200
    if (checkAccess(operation, caller) === 'mock' && operation.mock) {
      await admit(caller)
      charge = freeCharge(caller, 'sandbox')
      const output = checkedOutput(runtime, operation, operation.mock(input))
      receipt = await charge.complete()
      outcome = 'ok'
      return { output, status, receipt, rateLimit }
    }
    charge = await runtime.payments.open({
      operationId: operation.id,
      description: `${operation.summary} (${quality})`,
      price: operation.price,
      caller,
      quality,
      payment: request.payment,
      resourceUrl: request.resourceUrl,
      units: operation.units?.(input),
      admit,
    })
    const writes: (() => Promise<void>)[] = []
    const ctx: OperationContext = {
      caller: charge.caller,
      quality,
      clock: runtime.clock,
      requestId: request.requestId,
      deps: runtime.deps,
      afterPayment: (write) => void writes.push(write),
    }
    let output: unknown
    try {
      output = checkedOutput(runtime, operation, await operation.run(input, ctx))
    } catch (error) {
      await charge.cancel()
      throw error
    }
    receipt = await charge.complete()
    await keepWrites(writes, (error) => runtime.onWriteError?.(error, operation.id))
    outcome = 'ok'
    return { output, status, receipt, rateLimit }
  } catch (error) {
    let failure = asDependencyFailure(error)
    if (limits && failure instanceof PaymentRequiredError && !charge && caller.kind === 'anonymous') {
      // A challenge to a caller with neither key nor verified payment: limited per client IP.
      try {
        await limits.admitChallenge(request.clientAddress)
      } catch (refusal) {
        failure = asDependencyFailure(refusal)
      }
    }
    outcome = outcomeOf(failure)
    throw failure
  } finally {
    const payer = charge?.caller ?? caller
    if (payer.kind !== 'anonymous') {
      await runtime.usage.record({
        keyId: payer.kind === 'key' ? payer.keyId : null,
        operation: operation.id,
        outcome,
        paidWith: receipt?.paidWith ?? 'free',
        costMicros: receipt?.amount ?? 0n,
        latencyMs: Math.round(performance.now() - started),
      })
    }
  }
}
