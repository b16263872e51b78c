import type { Clock } from '../../context.ts'
import type { OnChainSettler } from '../evm/settle.ts'
import type { SettleResult, Settler } from '../settle-result.ts'
import type { VerifiedPayment } from '../verify-result.ts'
import type { SettlementLedger } from './settlement-ledger.ts'

export type SettleOutcome =
  | { kind: 'settled'; result: SettleResult }
  /** A retryable failure: the row stays PENDING for the retry worker (spec: settlement PENDING). */
  | { kind: 'deferred'; result: SettleResult }
  /**
   * Policy `refuse`: settlement could not even be started (nothing sent anywhere), so the row is
   * FAILED, the answer withheld and nothing charged; the caller may pay again later.
   */
  | { kind: 'refused'; result: SettleResult }
  | { kind: 'failed'; result: SettleResult }

export interface SettlementServiceOptions {
  ledger: SettlementLedger
  settler: Settler
  clock: Clock
  /** First retry delay; doubles per attempt. */
  retryBaseMs?: number
  /** How long after validBefore an unused, interrupted settlement is given up (default 2 min). */
  expiryGraceMs?: number
  /**
   * What a paid call gets when its settlement cannot be started now (facilitator down, no working
   * fallback, nothing sent): `refuse` (default) withholds the answer and charges nothing; `serve`
   * answers and leaves the settlement to the retry worker (risk: the payer may be gone by then).
   * A settlement that may already have been sent is always served and followed up.
   */
  unconfirmed?: 'refuse' | 'serve'
  /**
   * Whether a payment's transfer to payTo landed on chain (the sweep of interrupted settlements,
   * and a retry whose authorization turned out used): true only for this payment's transfer to
   * us; false when not (never sent, or its nonce used by a cancellation or another transfer).
   */
  authorizationUsed?: OnChainSettler['authorizationUsed']
  log?: (message: string, extra?: unknown) => void
}

/**
 * Moves ledger rows forward: settles a paid call right after its operation succeeded, retries
 * deferred settlements, and resolves rows left behind by a process that died.
 */
export function createSettlementService(options: SettlementServiceOptions) {
  const { ledger, settler, clock } = options
  const retryBaseMs = options.retryBaseMs ?? 15_000
  // A transaction sent just before validBefore can still be mined a little after it.
  const expiryGraceMs = options.expiryGraceMs ?? 120_000
  const log = options.log ?? (() => {})

  const unconfirmed = options.unconfirmed ?? 'refuse'
  // Settled payments whose SETTLED row could not be written yet (the database failed just then):
  // the outcome is known here, so the retry pass writes it (with a top-up's credit) as soon as
  // the database answers. The sweep's stale-row rule covers a process that dies meanwhile.
  const unrecorded = new Map<string, SettleResult>()

  async function record(id: string, result: SettleResult): Promise<void> {
    try {
      await ledger.settled(id, result)
      unrecorded.delete(id)
    } catch (error) {
      unrecorded.set(id, result)
      log('settled, but the ledger could not record it yet; retried by the worker', {
        id,
        error: String(error),
      })
    }
  }

  async function attempt(
    id: string,
    payment: VerifiedPayment,
    attempts: number,
    onRequestPath = false,
  ): Promise<SettleOutcome> {
    const result = await settler.settle(payment)
    if (result.success) {
      // The money moved: the caller gets the answer it paid for even when the row cannot be
      // written now (it is written by the retry pass).
      await record(id, result)
      return { kind: 'settled', result }
    }
    const reason = result.errorReason ?? 'settlement_failed'
    if (!onRequestPath && reason === 'nonce_replay') {
      // A deferred settlement whose authorization the chain now shows used. Used is not paid: an
      // earlier send of ours (or the payer's own submission) moved the money to payTo, but a
      // cancelAuthorization or another transfer uses the nonce too. The chain decides: SETTLED
      // only when this payment's transfer to us is there (never FAILED for money that moved),
      // FAILED when the nonce went elsewhere (nothing was paid), asked again when it cannot tell.
      const landed = await options.authorizationUsed?.(payment).catch(() => undefined)
      if (landed === true) {
        await record(id, { ...result, success: true, amount: payment.amount.toString() })
        return { kind: 'settled', result }
      }
      if (landed === false) {
        await ledger.failed(
          id,
          'the authorization was used on chain, but not by a transfer of this payment to us (cancelled, or another transfer): nothing was paid',
        )
        return { kind: 'failed', result }
      }
      await ledger.retryLater(id, reason, attempts, retryBaseMs * 2 ** Math.max(0, attempts - 1))
      return { kind: 'deferred', result }
    }
    const expired =
      payment.validBefore !== undefined && payment.validBefore.getTime() <= clock.now().getTime()
    if (
      onRequestPath &&
      result.retryable &&
      !expired &&
      result.submitted === false &&
      unconfirmed === 'refuse'
    ) {
      await ledger.failed(id, `settlement could not be started (${reason}); answer withheld, nothing charged`)
      return { kind: 'refused', result }
    }
    if (result.retryable && !expired) {
      await ledger.retryLater(id, reason, attempts, retryBaseMs * 2 ** Math.max(0, attempts - 1))
      return { kind: 'deferred', result }
    }
    await ledger.failed(id, expired && result.retryable ? 'expired before settlement' : reason)
    return { kind: 'failed', result }
  }

  return {
    /** One settlement call with no ledger step (callers that write the ledger themselves). */
    settleOnce: (payment: VerifiedPayment) => settler.settle(payment),

    /** Request path: settle a reserved row now. */
    async settleReserved(id: string, payment: VerifiedPayment): Promise<SettleOutcome> {
      if (!(await ledger.beginAttempt(id, ['reserved']))) {
        throw new Error(`settlement ${id} is not reserved`)
      }
      return attempt(id, payment, 1, true)
    },

    /**
     * Records a settlement that succeeded outside `settleReserved` (a key top-up): SETTLED with
     * its credit now, or by the retry pass if the database fails. False when it is not written yet.
     */
    async recordSettled(id: string, result: SettleResult): Promise<boolean> {
      await record(id, result)
      return !unrecorded.has(id)
    },

    /** Settled payments whose ledger write is still owed (operator health). */
    unrecordedCount: () => unrecorded.size,

    /** Retry worker: one pass over due rows. Returns how many were attempted. */
    async retryDue(): Promise<number> {
      for (const [id, result] of [...unrecorded]) await record(id, result)
      const due = await ledger.due()
      let attempted = 0
      for (const row of due) {
        if (!(await ledger.beginAttempt(row.id, ['retrying']))) continue
        attempted++
        const outcome = await attempt(row.id, row.payment, row.attempts + 1)
        log('settlement retry', { id: row.id, outcome: outcome.kind })
      }
      return attempted
    },

    /**
     * Sweep (at start-up and on every worker pass): rows a dead process left behind. Reserved:
     * its operation never answered, nothing was delivered, so FAILED. Mid-settlement: SETTLED once
     * the chain shows the authorization used; FAILED once it is unused and past validBefore (it
     * can never move money again); otherwise left for a later pass, since a transaction the dead
     * process sent may still be mined. When the chain cannot be asked (no RPC), the outcome is not
     * guessed: the row stays PENDING in phase `unknown`, counted. Never sends a settlement itself,
     * so nothing is settled twice.
     */
    async sweep(isAlive: (instanceId: string) => Promise<boolean>): Promise<number> {
      const orphans = await ledger.orphans(isAlive)
      let resolved = 0
      for (const orphan of orphans) {
        if (orphan.phase === 'reserved') {
          await ledger.resolveOrphan(orphan.id, {
            settled: false,
            reason: 'interrupted before the operation answered; nothing delivered, nothing charged',
          })
          resolved++
          continue
        }
        // Asked of the chain when an RPC is configured; undefined when nothing can tell.
        const used = await options.authorizationUsed?.(orphan.payment).catch(() => undefined)
        const validBefore = orphan.payment.validBefore?.getTime()
        const expired = validBefore !== undefined && validBefore + expiryGraceMs <= clock.now().getTime()
        if (used === true) {
          await ledger.resolveOrphan(orphan.id, {
            settled: true,
            reason: 'interrupted during settlement; the chain shows the transfer',
          })
          resolved++
        } else if (used === false && expired) {
          await ledger.resolveOrphan(orphan.id, {
            settled: false,
            reason:
              'interrupted during settlement; no transfer of this payment to us on chain (unused, or its nonce used by a cancellation or another transfer) and past validBefore',
          })
          resolved++
        } else if (used === undefined && orphan.phase === 'settling') {
          // The facilitator may have settled it: never guess FAILED (or SETTLED).
          await ledger.markUnknown(
            orphan.id,
            'interrupted during settlement; the outcome cannot be learned (no RPC to ask): counted as unknown',
          )
          log('settlement outcome unknown', { id: orphan.id })
        }
      }
      return resolved
    },
  }
}

export type SettlementService = ReturnType<typeof createSettlementService>
