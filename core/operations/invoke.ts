import type { Caller, Clock, Quality } from '../context.ts'
import { QUALITIES } from '../context.ts'
import { PaymentRequiredError, ServiceError } from '../errors.ts'
import type { AnswerEvidence } from '../evidence/answer-evidence.ts'
import type { AnswerReceipt } from '../evidence/answer-receipt.ts'
import {
  type IdempotencyStore,
  idempotencyRequestHash,
  isValidIdempotencyKey,
} from '../idempotency/idempotency-store.ts'
import { type ApiKeyService, tierAtLeast } from '../keys/api-keys.ts'
import type { RateLimiter, RateLimitState } from '../limits/index.ts'
import { type MaintenanceSwitch, maintenanceError } from '../maintenance/maintenance-switch.ts'
import {
  type Charge,
  freeCharge,
  type PaidAnswer,
  type PaymentGate,
  type Receipt,
} from '../payments/charge.ts'
import { paymentSource } from '../payments/payment-gate.ts'
import { isDatabaseUnavailable } from '../store/database.ts'
import type { UsageEvent, UsageOutcome, UsageRecorder } from '../usage/usage-recorder.ts'
import type { AnyOperation } from './define.ts'
import type { OperationContext, ServiceDeps } from './operation-context.ts'
import { parseWith } from './parse.ts'
import { notReadyError } from './readiness.ts'
import { sandboxMockIds } from './registry.ts'

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
  /**
   * The caller's Idempotency-Key, raw (over MCP whatever `_meta` carried: anything but a valid
   * string is refused). Honoured for priced calls paid from an API key; ignored for x402
   * payments (a retry with the same payment gets its stored answer) and free operations.
   */
  idempotencyKey?: unknown
  /** How the adapter names the idempotency key in errors (`Idempotency-Key` over HTTP, `_meta.idempotency_key` over MCP). */
  idempotencyKeyField?: string
}

export interface InvocationResult {
  output: unknown
  /** The operation's success status (200, 201 or 204). */
  status: 200 | 201 | 204
  receipt: Receipt
  /** The signed receipt of a paid answer (X-Receipt over HTTP, `_meta.receipt` over MCP). */
  answerReceipt?: AnswerReceipt
  /** The tightest rate limit of the payer after this call (X-RateLimit-* over HTTP); none for the operator. */
  rateLimit?: RateLimitState
  /**
   * A stored answer served again, charged nothing now: an earlier call with the same
   * Idempotency-Key, or an x402 payment presented again for the same request after it was settled.
   */
  replayed?: boolean
  /**
   * Ends the charge once the adapter knows whether the answer reached the caller (HTTP: every
   * byte of the response handed to the kernel; MCP: the transport sent the result). Delivered: a
   * key's debit is captured (it stands) and an Idempotency-Key answer becomes replayable. Not
   * delivered: the debit is released with that answer, so nothing is charged and a retry runs.
   * x402 payments were settled before the answer was sent; replays and free calls charge
   * nothing: for them it does nothing. An adapter calls it exactly once per result (later calls
   * do nothing); it never throws. A result never settled is released by the sweep after a crash.
   */
  settle(delivered: boolean): Promise<void>
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
  /** Idempotency-Key records; absent: the header is ignored. */
  idempotency?: IdempotencyStore
  /** The operator's maintenance switch; absent: never in maintenance. */
  maintenance?: Pick<MaintenanceSwitch, 'current'>
  /** Receipts of paid answers and the audit trail; absent: neither. */
  evidence?: AnswerEvidence
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

/** `a`, `a and b`, `a, b and c`. */
const listInWords = (items: readonly string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`

/** Why a sandbox key is refused, naming the operations that do give it mock data. */
const SANDBOX_REFUSAL = `sandbox keys get mock data from ${listInWords(sandboxMockIds)} only; this operation needs a live key or x402 payment`

/** Who may run an operation (spec: Permissions, Sandbox): 'mock' for sandbox mocks, else 'run'. */
export function checkAccess(operation: AnyOperation, caller: Caller): 'mock' | 'run' {
  if (caller.kind !== 'key' || caller.role === 'admin') return 'run'
  if (caller.mode === 'sandbox') {
    if (operation.access.sandbox === 'mock') return 'mock'
    if (operation.access.sandbox === 'refuse') {
      throw new ServiceError('forbidden', SANDBOX_REFUSAL)
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

/** An Idempotency-Key this call holds: the answer is stored under it once the call is paid. */
interface IdempotencyClaimHeld {
  store: IdempotencyStore
  keyId: string
  idempotencyKey: string
  claimId: string
}

/**
 * The Idempotency-Key of a priced call paid from a key (no payment sent), checked; undefined when
 * the header is absent or does not apply (x402 payment, free operation, no store).
 */
function idempotencyKeyOf(
  runtime: OperationRuntime,
  operation: AnyOperation,
  caller: Caller,
  request: InvocationRequest,
): string | undefined {
  const raw = request.idempotencyKey
  if (raw === undefined || !runtime.idempotency) return undefined
  if (operation.price === null || caller.kind !== 'key' || paymentSource(request.payment)) return undefined
  if (typeof raw !== 'string' || !isValidIdempotencyKey(raw)) {
    throw new ServiceError('validation_failed', 'invalid request', {
      fields: [
        {
          field: request.idempotencyKeyField ?? 'Idempotency-Key',
          message: 'must be 1 to 255 printable ASCII characters',
        },
      ],
    })
  }
  return raw
}

/** What claiming the Idempotency-Key gave: nothing to claim, the key held, or a stored answer. */
type ClaimOutcome =
  | { kind: 'none' }
  | { kind: 'held'; held: IdempotencyClaimHeld }
  | { kind: 'replay'; answer: PaidAnswer }

/**
 * Claims the call's Idempotency-Key, after validation (a malformed request never holds a key) and
 * before any charge: a key used with another request is a 422 naming the field, one whose call
 * still runs a 409 with Retry-After, one answered before its stored answer.
 */
async function claimIdempotencyKey(
  runtime: OperationRuntime,
  operation: AnyOperation,
  caller: Caller,
  request: InvocationRequest,
  requestHash: () => string,
): Promise<ClaimOutcome> {
  const idempotencyKey = idempotencyKeyOf(runtime, operation, caller, request)
  const store = runtime.idempotency
  if (idempotencyKey === undefined || !store || caller.kind !== 'key') return { kind: 'none' }
  const claim = await store.claim({
    keyId: caller.keyId,
    idempotencyKey,
    operation: operation.id,
    requestHash: requestHash(),
    now: runtime.clock.now(),
  })
  const field = request.idempotencyKeyField ?? 'Idempotency-Key'
  if (claim.kind === 'mismatch') {
    throw new ServiceError('validation_failed', 'invalid request', {
      fields: [{ field, message: 'was already used with a different request' }],
    })
  }
  if (claim.kind === 'in_progress') {
    throw new ServiceError(
      'conflict',
      `a call with this ${field} is still in progress; retry after it finished`,
      {
        retryAfter: claim.retryAfter,
      },
    )
  }
  if (claim.kind === 'replay') return { kind: 'replay', answer: claim.answer }
  return { kind: 'held', held: { store, keyId: caller.keyId, idempotencyKey, claimId: claim.claimId } }
}

/** A stored answer served again: its output as answered, charged nothing now. */
function replayedResult(answer: PaidAnswer, receipt: Receipt): InvocationResult {
  const output = answer.body === null ? undefined : JSON.parse(answer.body)
  return {
    output,
    status: answer.status as 200 | 201 | 204,
    receipt,
    replayed: true,
    settle: nothingToSettle,
  }
}

/** The settle of a result that charged nothing (or settled already): delivery changes nothing. */
const nothingToSettle = async (): Promise<void> => {}

/**
 * Runs the operation under its open charge (the pipeline cancels the charge when this throws).
 * The charging rule: an essential part the service's own state keeps from running (lists
 * loading, a source not configured) makes the call a 503 before it runs, so the reservation is
 * released and an x402 payment never settled. It comes after the payment check, so a caller without credentials still gets
 * the 402 challenge the spec promises.
 */
async function runCharged(
  runtime: OperationRuntime,
  operation: AnyOperation,
  input: unknown,
  quality: Quality,
  ctx: OperationContext,
): Promise<unknown> {
  const notReady = (await operation.essentials?.check(input, runtime.deps, quality)) ?? []
  if (notReady.length > 0) throw notReadyError(operation.id, notReady)
  return checkedOutput(runtime, operation, await operation.run(input, ctx))
}

/**
 * Writes the answer under the key debit's reservation before the answer is sent: the capture
 * marks it replayable in the statement that makes the debit stand, a release deletes it, so it is
 * replayable exactly when paid, even if this process dies in between. False when it could not be
 * written (no reservation, the claim was taken over, the database failed): it is then stored apart
 * once the charge completed, and deleted again if the answer is not delivered.
 */
async function answerUnderReservation(
  runtime: OperationRuntime,
  operation: AnyOperation,
  held: IdempotencyClaimHeld,
  charge: Charge,
  answer: PaidAnswer,
): Promise<boolean> {
  if (!charge.reservationId) return false
  return held.store
    .answer(held.keyId, held.idempotencyKey, held.claimId, answer, charge.reservationId)
    .catch((error) => {
      runtime.onWriteError?.(error, operation.id)
      return false
    })
}

/**
 * The writes that keep the answer once the charge completed, before the operation's own: an x402
 * answer for a retry with the same payment (it is settled), and an Idempotency-Key answer that
 * could not be written under a reservation (`storedApart`; no reservation, or that write failed).
 */
function answerWrites(
  runtime: OperationRuntime,
  charge: Charge,
  storedApart: IdempotencyClaimHeld | undefined,
  answer: PaidAnswer,
): (() => Promise<void>)[] {
  const writes: (() => Promise<void>)[] = []
  const keepAnswer = charge.keepAnswer
  if (keepAnswer) writes.push(() => keepAnswer(answer))
  if (storedApart) {
    const { store, keyId, idempotencyKey, claimId } = storedApart
    writes.push(() => store.complete(keyId, idempotencyKey, claimId, answer, runtime.clock.now()))
  }
  return writes
}

/**
 * How the charge of an answered call ends once the adapter knows whether the answer arrived:
 * delivered, the key debit is captured (which makes an answer stored under it replayable); not
 * delivered, the debit is released with that answer, and an answer stored apart is deleted too,
 * so the key is free for a retry that runs (and is charged) again. Once only; failures are
 * reported, never thrown (a capture that failed is retried by the reservations' sweep).
 */
function settlementOf(
  runtime: OperationRuntime,
  operation: AnyOperation,
  charge: Charge,
  storedApart: IdempotencyClaimHeld | undefined,
): InvocationResult['settle'] {
  const report = (error: unknown) => runtime.onWriteError?.(error, operation.id)
  let settled = false
  return async (delivered) => {
    if (settled) return
    settled = true
    await charge.finish(delivered).catch(report)
    if (delivered || !storedApart) return
    const { store, keyId, idempotencyKey, claimId } = storedApart
    await store.release(keyId, idempotencyKey, claimId).catch(report)
  }
}

/**
 * The answer as it is kept for a retry (an Idempotency-Key, an x402 payment): its JSON text is
 * written only when something keeps it, once, so a call that keeps nothing never serialises it
 * beside the response.
 */
function paidAnswerOf(status: number, output: unknown): PaidAnswer {
  let body: string | null | undefined
  return {
    status,
    get body() {
      if (body === undefined) body = output === undefined ? null : JSON.stringify(output)
      return body
    },
  }
}

/** What makes two calls the same request, computed once and only when asked for. */
function requestHashOnce(operation: AnyOperation, quality: Quality, input: unknown): () => string {
  let hash: string | undefined
  return () => {
    hash ??= idempotencyRequestHash(operation.id, quality, input)
    return hash
  }
}

/**
 * The one path every operation call takes, whatever the transport:
 * authenticate -> maintenance (503 for all but the operator) -> validate -> access -> claim the
 * Idempotency-Key (key-paid calls that send one; a replay ends here, charged nothing) -> charge
 * (an x402 payment presented again for the same request after it was settled ends here with the
 * answer it bought) -> essential parts ready (else 503, the charge cancelled) -> run -> store the
 * answer under the key debit's reservation -> complete the charge (x402 settles on chain) -> keep
 * what the call produced -> record usage -> return the answer with `settle`, which the adapter
 * calls once it knows whether the answer was delivered: the key debit is captured, or released.
 * A failed call releases its claim and cancels its charge. A free operation (`price: null`) needs
 * a key and never answers 402.
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
  let held: IdempotencyClaimHeld | undefined
  // The usage row as written (in `finally`, before the answer goes out), for `undeliveredOnSettle`.
  let recorded: UsageEvent | undefined
  const limits = runtime.limits
  /**
   * The usage row of an answered call says what became of the answer: written `ok` before it is
   * sent (so a report read after the answer counts it), and moved to `undelivered` when the
   * connection closed first: costing nothing for a key debit (released), the settled amount for
   * x402 (paid before the answer was sent).
   */
  const undeliveredOnSettle = (inner: InvocationResult['settle']): InvocationResult['settle'] => {
    let done = false
    return async (delivered) => {
      await inner(delivered)
      if (delivered || done || !recorded) return
      done = true
      const cost = recorded.paidWith === 'account' ? 0n : recorded.costMicros
      await runtime.usage.undelivered?.(recorded, cost)
    }
  }
  const admit = async (payer: Caller): Promise<void> => {
    rateLimit = (await limits?.admit(payer, request.clientAddress)) ?? rateLimit
  }
  try {
    caller = await runtime.keys.authenticate(request.apiKey)
    // Maintenance: every caller but the operator gets the operator's 503 before anything else.
    if (runtime.maintenance && !(caller.kind === 'key' && caller.role === 'admin')) {
      const state = await runtime.maintenance.current()
      if (state.enabled) throw maintenanceError(state)
    }
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
      return { output, status, receipt, rateLimit, settle: nothingToSettle }
    }
    const requestHash = requestHashOnce(operation, quality, input)
    const claim = await claimIdempotencyKey(runtime, operation, caller, request, requestHash)
    if (claim.kind === 'replay') {
      receipt = { paidWith: 'account', amount: 0n }
      outcome = 'ok'
      return replayedResult(claim.answer, receipt)
    }
    held = claim.kind === 'held' ? claim.held : undefined
    charge = await runtime.payments.open({
      operationId: operation.id,
      description: `${operation.summary} (${quality})`,
      price: operation.price,
      caller,
      quality,
      payment: request.payment,
      resourceUrl: request.resourceUrl,
      units: operation.units?.(input),
      requestHash: paymentSource(request.payment) ? requestHash() : undefined,
      admit,
    })
    if (charge.replay) {
      receipt = charge.replay.receipt
      outcome = 'ok'
      return { ...replayedResult(charge.replay.answer, receipt), rateLimit }
    }
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
      output = await runCharged(runtime, operation, input, quality, ctx)
    } catch (error) {
      await charge.cancel()
      throw error
    }
    const answer = paidAnswerOf(status, output)
    const answeredUnderReservation = held
      ? await answerUnderReservation(runtime, operation, held, charge, answer)
      : false
    receipt = await charge.complete()
    writes.unshift(...answerWrites(runtime, charge, answeredUnderReservation ? undefined : held, answer))
    await keepWrites(writes, (error) => runtime.onWriteError?.(error, operation.id))
    const settle = settlementOf(runtime, operation, charge, answeredUnderReservation ? undefined : held)
    held = undefined
    outcome = 'ok'
    // Evidence: a paid answer's receipt is signed now; its audit row is kept once settled. A
    // receipt that cannot be made never costs the caller the answer: it goes out without one.
    let evidence: ReturnType<NonNullable<OperationRuntime['evidence']>['answered']> | undefined
    try {
      evidence = runtime.evidence?.answered({
        operation,
        payer: charge.caller,
        quality,
        requestId: request.requestId,
        rawInput: request.input,
        input,
        output,
        charged: receipt,
      })
    } catch (evidenceError) {
      runtime.onWriteError?.(evidenceError, operation.id)
    }
    if (!evidence) return { output, status, receipt, rateLimit, settle: undeliveredOnSettle(settle) }
    const answerReceipt = evidence.receipt ? { answerReceipt: evidence.receipt } : {}
    return {
      output,
      status,
      receipt,
      ...answerReceipt,
      rateLimit,
      settle: undeliveredOnSettle(evidence.settle(settle)),
    }
  } catch (error) {
    if (held) {
      // Nothing was charged: the key is free again, so a retry runs. A release that fails leaves
      // the claim to be taken over once it is stale.
      const { store, keyId, idempotencyKey, claimId } = held
      await store
        .release(keyId, idempotencyKey, claimId)
        .catch((releaseError) => runtime.onWriteError?.(releaseError, operation.id))
    }
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
      recorded = {
        keyId: payer.kind === 'key' ? payer.keyId : null,
        operation: operation.id,
        outcome,
        paidWith: receipt?.paidWith ?? 'free',
        costMicros: receipt?.amount ?? 0n,
        latencyMs: Math.round(performance.now() - started),
      }
      await runtime.usage.record(recorded)
    }
  }
}
