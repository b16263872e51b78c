import type { Caller, Quality } from '../context.ts'
import type { Receipt } from '../payments/charge.ts'
import type { ReportSigner } from '../reports/evidence.ts'
import { MATCHER_VERSION } from '../sanctions/matcher-version.ts'
import type { LoadedList } from '../sanctions/screening-index.ts'
import { type AnswerReceipt, signAnswerReceiptWithDigest } from './answer-receipt.ts'
import { subjectOf } from './audit-chain.ts'
import type { AuditEventInput, AuditStore } from './audit-store.ts'

/** The operation facts the evidence needs (a slice of the registry's operation). */
export interface EvidenceOperation {
  id: string
  http: { method: string }
  essentials?: { parts: readonly { part: string }[] }
}

/** One answered call, as the invocation pipeline hands it over. */
export interface AnsweredCall {
  operation: EvidenceOperation
  payer: Caller
  quality: Quality
  requestId: string
  /** The operation's input as received (what request_hash covers). */
  rawInput: unknown
  /** The parsed input (what the subject is read from). */
  input: unknown
  output: unknown
  charged: Receipt
}

/** The evidence of one answered call: its signed receipt (paid answers), kept once the outcome is known. */
export interface CallEvidence {
  receipt?: AnswerReceipt
  /**
   * Wraps the call's settle: once it is known whether the answer was delivered, the charge is
   * settled and the audit row (with the receipt) appended, queued together so that a captured
   * debit and its audit row share one statement (they commit together). A key debit whose answer
   * was not delivered was released: nothing is recorded. An x402 payment was settled before the
   * answer was sent, and a change was made before it was answered: both are recorded either way.
   */
  settle(inner: (delivered: boolean) => Promise<void>): (delivered: boolean) => Promise<void>
}

export interface AnswerEvidence {
  /**
   * The evidence of an answered call: a paid answer gets a receipt signed now (it travels with the
   * answer) and a `call` row in the payer's audit chain; a change (a key-authenticated call that is
   * not a GET: webhooks, watchlist, key revocation) a `change` row; anything else nothing.
   */
  answered(call: AnsweredCall): CallEvidence | undefined
  /** Appends a change made outside the operations (operator key routes, sign-up). */
  recordChange(event: Omit<AuditEventInput, 'kind' | 'at'> & { at?: Date }): Promise<void>
  /** Turns receipts off (benchmarks compare with and without); the audit trail is kept either way. */
  readonly receiptsEnabled: boolean
}

/** The chain of a payer: `key:<id>`, `x402:<network>:<payer>`. */
export function chainOf(payer: Caller): string | undefined {
  if (payer.kind === 'key') return payer.role === 'admin' ? 'platform' : `key:${payer.keyId}`
  if (payer.kind === 'x402') return `x402:${payer.network}:${payer.payer.toLowerCase()}`
  return undefined
}

/**
 * A settle that runs once: adapters may report an outcome twice (HTTP 'finish' then 'close'),
 * and the row must be appended once.
 */
function once(settle: (delivered: boolean) => Promise<void>): (delivered: boolean) => Promise<void> {
  let called = false
  return async (delivered) => {
    if (called) return
    called = true
    await settle(delivered)
  }
}

/** Whether an operation screens against the sanctions lists (its receipt names their versions). */
const screens = (operation: EvidenceOperation) =>
  operation.essentials?.parts.some((part) => part.part === 'sanctions') ?? false

/**
 * Receipts and audit rows for the invocation pipeline. Receipts are signed on the request path
 * with Node's native Ed25519 (tens of microseconds); the audit row is written once the outcome
 * is known, off the request path, in the statement of the debit's capture.
 */
export function createAnswerEvidence(options: {
  signer: ReportSigner
  jwksUrl: string
  audit: AuditStore
  clock: { now(): Date }
  /** The list versions held now (screening receipts); absent: no lists loaded. */
  lists?: () => readonly LoadedList[]
  receipts?: boolean
  onError?: (error: unknown) => void
}): AnswerEvidence {
  const receiptsEnabled = options.receipts ?? true
  const report = (error: unknown) => options.onError?.(error)
  return {
    receiptsEnabled,
    answered(call) {
      const chain = chainOf(call.payer)
      if (!chain) return undefined
      const paid =
        (call.charged.paidWith === 'account' || call.charged.paidWith === 'x402') && call.charged.amount > 0n
      const keyId = call.payer.kind === 'key' ? call.payer.keyId : null
      const subject = subjectOf(call.input)
      const at = options.clock.now()
      if (paid) {
        const signed = receiptsEnabled
          ? signAnswerReceiptWithDigest(
              {
                operation: call.operation.id,
                quality: call.quality,
                requestId: call.requestId,
                input: call.rawInput,
                output: call.output,
                payer: call.payer,
                charged: call.charged,
                issuedAt: at,
                ...(screens(call.operation)
                  ? { screening: { lists: options.lists?.() ?? [], matcherVersion: MATCHER_VERSION } }
                  : {}),
              },
              options.signer,
              options.jwksUrl,
            )
          : undefined
        const receipt = signed?.receipt
        const event: AuditEventInput = {
          chain,
          keyId,
          at,
          kind: 'call',
          action: call.operation.id,
          outcome: 'ok',
          ...(subject === undefined ? {} : { subject }),
          paidWith: call.charged.paidWith,
          amountMicros: call.charged.amount,
          ...(signed
            ? {
                receiptId: signed.receipt.receipt_id,
                receipt: signed.receipt,
                receiptContentSha256: signed.contentSha256,
              }
            : {}),
        }
        const debit = call.charged.paidWith === 'account'
        return {
          ...(receipt ? { receipt } : {}),
          settle: (inner) =>
            once(async (delivered) => {
              // Queued in the same turn as the debit's capture, so both go out in one statement
              // (core/store/group-commit.ts) and the audit row commits with the debit it records.
              const appended = delivered || !debit ? options.audit.append(event).catch(report) : undefined
              await inner(delivered)
              await appended
            }),
        }
      }
      if (call.payer.kind !== 'key' || call.operation.http.method === 'GET') return undefined
      const event: AuditEventInput = {
        chain,
        keyId,
        at,
        kind: 'change',
        action: call.operation.id,
        outcome: 'ok',
        ...(subject === undefined ? {} : { subject }),
      }
      return {
        settle: (inner) =>
          once(async (delivered) => {
            await inner(delivered)
            await options.audit.append(event).catch(report)
          }),
      }
    },
    async recordChange(event) {
      await options.audit.append({ ...event, kind: 'change', at: event.at ?? options.clock.now() })
    },
  }
}
