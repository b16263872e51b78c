import { randomUUID } from 'node:crypto'
import { and, eq, inArray, lte, ne, not, or, sql } from 'drizzle-orm'
import type { Hex } from 'viem'
import type { Clock, Tier } from '../../context.ts'
import { creditTopUp } from '../../keys/api-keys.ts'
import type { Micros } from '../../money.ts'
import type { Db, DbTransaction } from '../../store/database.ts'
import { serviceInstances, settlements } from '../../store/schema.ts'
import { findPaymentNetwork, type PaymentConfig } from '../networks.ts'
import type { EvmAuthorizationWire } from '../payment-header.ts'
import { KEY_UPGRADE_OPERATION_ID } from '../pricing.ts'
import type { SettleResult } from '../settle-result.ts'
import { authorizationToWire, type VerifiedPayment } from '../verify-result.ts'

/** `unknown`: a dead process was settling it and neither the chain nor anything else can tell the outcome. */
export type SettlementPhase = 'reserved' | 'settling' | 'retrying' | 'unknown'

export interface LedgerRow {
  id: string
  status: 'PENDING' | 'SETTLED' | 'FAILED'
  phase: SettlementPhase | 'done' | 'released'
  exhausted: boolean
  attempts: number
  operation: string
  keyId: string | null
  amountMicros: Micros
  transaction: string | null
  lastError: string | null
}

export interface LedgerSummary {
  /** PENDING rows still within their retry budget. */
  pending: number
  /** PENDING rows whose retry budget is spent (counted separately, spec: States). */
  exhausted: number
  failed: number
  /** PENDING rows whose settlement outcome cannot be learned (counted, never guessed). */
  unknown: number
  /** Money of PENDING rows (exhausted or not) that may never arrive. */
  uncollectedMicros: Micros
  /** PENDING rows waiting for the retry worker. */
  queueDepth: number
}

/** A VerifiedPayment in JSON form (bigints as strings; the network is re-read from config). */
interface StoredPayment {
  paymentId: string
  kind: VerifiedPayment['kind']
  network: string
  payer: string
  amount: string
  price: string
  requirement: Omit<VerifiedPayment['requirement'], 'network' | 'amount'> & { amount: string }
  paymentPayload: VerifiedPayment['paymentPayload']
  paymentRequirements: VerifiedPayment['paymentRequirements']
  authorization?: EvmAuthorizationWire
  signature?: string
  validBefore?: string
}

function storePayment(payment: VerifiedPayment): StoredPayment {
  const { network: _network, amount, ...requirement } = payment.requirement
  const authorization = payment.authorization
  return {
    paymentId: payment.paymentId,
    kind: payment.kind,
    network: payment.network,
    payer: payment.payer,
    amount: payment.amount.toString(),
    price: payment.price.toString(),
    requirement: { ...requirement, amount: amount.toString() },
    paymentPayload: payment.paymentPayload,
    paymentRequirements: payment.paymentRequirements,
    ...(authorization ? { authorization: authorizationToWire(authorization) } : {}),
    ...(payment.signature ? { signature: payment.signature } : {}),
    ...(payment.validBefore ? { validBefore: payment.validBefore.toISOString() } : {}),
  }
}

function loadPayment(stored: StoredPayment, config: PaymentConfig): VerifiedPayment {
  const network = findPaymentNetwork(config, stored.network)
  if (!network) throw new Error(`network ${stored.network} is no longer configured`)
  const a = stored.authorization
  return {
    isValid: true,
    paymentId: stored.paymentId,
    kind: stored.kind,
    network: stored.network,
    payer: stored.payer,
    amount: BigInt(stored.amount),
    price: BigInt(stored.price),
    requirement: { ...stored.requirement, amount: BigInt(stored.requirement.amount), network },
    paymentPayload: stored.paymentPayload,
    paymentRequirements: stored.paymentRequirements,
    ...(a
      ? {
          authorization: {
            from: a.from as Hex,
            to: a.to as Hex,
            value: BigInt(a.value),
            validAfter: BigInt(a.validAfter),
            validBefore: BigInt(a.validBefore),
            nonce: a.nonce as Hex,
          },
        }
      : {}),
    ...(stored.signature ? { signature: stored.signature as Hex } : {}),
    ...(stored.validBefore ? { validBefore: new Date(stored.validBefore) } : {}),
  }
}

export interface SettlementLedgerOptions {
  db: Db
  clock: Clock
  config: PaymentConfig
  /** This process's id (rows it reserves carry it). */
  instanceId: string
  /** Settlement attempts before a PENDING row is marked exhausted. */
  maxAttempts?: number
  /**
   * A row of a live process still `settling` after this long is treated like an orphan by the
   * sweep (its process settled it but could not record the outcome). Default 5 minutes: longer
   * than any settlement attempt with its receipt wait.
   */
  staleSettlingMs?: number
}

/**
 * The settlement ledger (spec: States, settlement ledger rows). Every verified payment gets a
 * row before its operation runs; each later step is one UPDATE guarded by the expected phase,
 * so a row moves forward exactly once even with several workers.
 */
export function createSettlementLedger(options: SettlementLedgerOptions) {
  const { db, clock, config, instanceId } = options
  const maxAttempts = options.maxAttempts ?? 5
  const staleSettlingMs = options.staleSettlingMs ?? 5 * 60_000

  async function update(
    id: string,
    from: SettlementPhase[],
    values: { [K in keyof typeof settlements.$inferInsert]?: unknown },
    executor: Db | DbTransaction = db,
  ): Promise<boolean> {
    const rows = await executor
      .update(settlements)
      .set({ ...(values as Partial<typeof settlements.$inferInsert>), updatedAt: clock.now() })
      .where(and(eq(settlements.id, id), eq(settlements.status, 'PENDING'), inArray(settlements.phase, from)))
      .returning({ id: settlements.id })
    return rows.length === 1
  }

  /**
   * Moves a PENDING row to SETTLED in one transaction with what depends on the money: a key
   * top-up (`key_upgrade:<tier>`) credits its key in the same commit, on every path to SETTLED
   * (at once, a retried ledger write, or the sweep), so a paid top-up is credited exactly once.
   */
  async function markSettled(
    id: string,
    from: SettlementPhase[],
    values: { [K in keyof typeof settlements.$inferInsert]?: unknown },
  ): Promise<boolean> {
    return db.transaction(async (tx) => {
      const [row] = await tx
        .update(settlements)
        .set({ ...(values as Partial<typeof settlements.$inferInsert>), updatedAt: clock.now() })
        .where(
          and(eq(settlements.id, id), eq(settlements.status, 'PENDING'), inArray(settlements.phase, from)),
        )
        .returning({
          operation: settlements.operation,
          keyId: settlements.keyId,
          amount: settlements.amountMicros,
        })
      if (!row) return false
      const prefix = `${KEY_UPGRADE_OPERATION_ID}:`
      if (row.operation.startsWith(prefix) && row.keyId) {
        await creditTopUp(tx, row.keyId, row.amount, row.operation.slice(prefix.length) as Tier)
      }
      return true
    })
  }

  const settledValues = (result: SettleResult) => ({
    status: 'SETTLED',
    phase: 'done',
    transaction: result.transaction ?? null,
    fallback: result.fallback ?? false,
    settledAt: clock.now(),
    lastError: null,
  })

  return {
    maxAttempts,

    /** Records a verified payment before its operation runs. */
    async reserve(payment: VerifiedPayment, operation: string, keyId: string | null): Promise<string> {
      const id = randomUUID()
      await db.insert(settlements).values({
        id,
        paymentId: payment.paymentId,
        status: 'PENDING',
        phase: 'reserved',
        network: payment.network,
        payer: payment.payer,
        amountMicros: payment.amount,
        operation,
        keyId,
        instanceId,
        payment: storePayment(payment),
        validBefore: payment.validBefore ?? null,
      })
      return id
    },

    /** The operation failed: nothing is charged and the payment is released (not a failed settlement). */
    release: (id: string, reason: string) =>
      update(id, ['reserved'], { status: 'FAILED', phase: 'released', lastError: reason }),

    /** A settlement attempt starts; false when another worker has the row. */
    beginAttempt: (id: string, from: SettlementPhase[]) =>
      update(id, from, { phase: 'settling', attempts: sql`${settlements.attempts} + 1` }),

    /**
     * The settlement succeeded: SETTLED (a top-up credits its key in the same commit). From
     * `unknown` too: a sweep may have marked a row whose outcome this process knows.
     */
    settled: (id: string, result: SettleResult) =>
      markSettled(id, ['settling', 'unknown'], settledValues(result)),

    failed: (id: string, reason: string) =>
      update(id, ['settling', 'retrying', 'reserved'], {
        status: 'FAILED',
        phase: 'done',
        lastError: reason,
      }),

    /** A retryable failure: try again later, or mark exhausted when the budget is spent. */
    async retryLater(id: string, reason: string, attempts: number, delayMs: number): Promise<void> {
      const exhausted = attempts >= maxAttempts
      await update(id, ['settling'], {
        phase: 'retrying',
        lastError: reason,
        exhausted,
        nextAttemptAt: exhausted ? null : new Date(clock.now().getTime() + delayMs),
      })
    },

    /** PENDING rows due for a retry (not exhausted), oldest first. */
    async due(limit = 20): Promise<{ id: string; attempts: number; payment: VerifiedPayment }[]> {
      const rows = await db
        .select()
        .from(settlements)
        .where(
          and(
            eq(settlements.status, 'PENDING'),
            eq(settlements.phase, 'retrying'),
            eq(settlements.exhausted, false),
            lte(settlements.nextAttemptAt, clock.now()),
          ),
        )
        .orderBy(settlements.nextAttemptAt)
        .limit(limit)
      return rows.map((row) => ({
        id: row.id,
        attempts: row.attempts,
        payment: loadPayment(row.payment as StoredPayment, config),
      }))
    },

    async get(id: string): Promise<LedgerRow | null> {
      const [row] = await db.select().from(settlements).where(eq(settlements.id, id)).limit(1)
      return row
        ? {
            id: row.id,
            status: row.status as LedgerRow['status'],
            phase: row.phase as LedgerRow['phase'],
            exhausted: row.exhausted,
            attempts: row.attempts,
            operation: row.operation,
            keyId: row.keyId,
            amountMicros: row.amountMicros,
            transaction: row.transaction,
            lastError: row.lastError,
          }
        : null
    },

    /** Records this process in the instance registry (who reserved which rows). */
    async register(): Promise<void> {
      const now = clock.now()
      await db
        .insert(serviceInstances)
        .values({ id: instanceId, startedAt: now, heartbeatAt: now })
        .onConflictDoUpdate({ target: serviceInstances.id, set: { heartbeatAt: now } })
    },

    /**
     * Start-up sweep input: PENDING rows reserved or mid-settlement by a process that is gone
     * (`isAlive` asks the database, see Database.isAlive).
     */
    async orphans(
      isAlive: (instanceId: string) => Promise<boolean>,
    ): Promise<{ id: string; phase: SettlementPhase; payment: VerifiedPayment }[]> {
      const staleBefore = clock.now().getTime() - staleSettlingMs
      const rows = await db
        .select()
        .from(settlements)
        .where(
          and(
            eq(settlements.status, 'PENDING'),
            inArray(settlements.phase, ['reserved', 'settling', 'unknown']),
            // This process's own rows are calls in flight, unless one was left settling too long:
            // not read at all (every worker pass runs this, with any number of calls in flight).
            or(
              ne(settlements.instanceId, instanceId),
              and(eq(settlements.phase, 'settling'), lte(settlements.updatedAt, new Date(staleBefore))),
            ),
          ),
        )
      const alive = new Map<string, boolean>([[instanceId, true]])
      for (const owner of new Set(rows.map((row) => row.instanceId))) {
        if (!alive.has(owner)) alive.set(owner, await isAlive(owner))
      }
      // Rows of dead processes, and rows any process (this one too) left `settling` for too long:
      // it settled but could not record the outcome (the database failed just then).
      const stale = (row: (typeof rows)[number]) =>
        row.phase === 'settling' && row.updatedAt.getTime() <= staleBefore
      return rows
        .filter((row) => !alive.get(row.instanceId) || stale(row))
        .map((row) => ({
          id: row.id,
          phase: row.phase as SettlementPhase,
          payment: loadPayment(row.payment as StoredPayment, config),
        }))
    },

    /**
     * Resolves an orphan: SETTLED when the chain shows the transfer happened, FAILED otherwise.
     * Never sends a settlement itself, so nothing is settled twice.
     */
    async resolveOrphan(id: string, outcome: { settled: boolean; transaction?: string; reason: string }) {
      if (outcome.settled) {
        await markSettled(id, ['reserved', 'settling', 'retrying', 'unknown'], {
          status: 'SETTLED',
          phase: 'done',
          transaction: outcome.transaction ?? null,
          settledAt: clock.now(),
          lastError: outcome.reason,
        })
        return
      }
      await db
        .update(settlements)
        .set({ status: 'FAILED', phase: 'done', lastError: outcome.reason, updatedAt: clock.now() })
        .where(and(eq(settlements.id, id), eq(settlements.status, 'PENDING')))
    },

    /**
     * An orphan whose outcome cannot be learned (no RPC to ask, the chain unreachable): it stays
     * PENDING in phase `unknown`, counted in the health figures, and is asked again on later sweeps.
     */
    async markUnknown(id: string, reason: string): Promise<boolean> {
      const rows = await db
        .update(settlements)
        .set({ phase: 'unknown', lastError: reason })
        .where(
          and(
            eq(settlements.id, id),
            eq(settlements.status, 'PENDING'),
            inArray(settlements.phase, ['settling']),
          ),
        )
        .returning({ id: settlements.id })
      return rows.length === 1
    },

    /** Figures for GET /v1/financial/health. */
    async summary(): Promise<LedgerSummary> {
      const [row] = await db
        .select({
          pending: sql<number>`count(*) filter (where status = 'PENDING' and not exhausted)`,
          exhausted: sql<number>`count(*) filter (where status = 'PENDING' and exhausted)`,
          failed: sql<number>`count(*) filter (where status = 'FAILED' and phase = 'done')`,
          unknown: sql<number>`count(*) filter (where status = 'PENDING' and phase = 'unknown')`,
          uncollected: sql<string>`coalesce(sum(amount_micros) filter (where status = 'PENDING' and phase = 'retrying'), 0)`,
          queue: sql<number>`count(*) filter (where status = 'PENDING' and phase = 'retrying' and not exhausted)`,
        })
        .from(settlements)
      return {
        pending: Number(row?.pending ?? 0),
        exhausted: Number(row?.exhausted ?? 0),
        failed: Number(row?.failed ?? 0),
        unknown: Number(row?.unknown ?? 0),
        uncollectedMicros: BigInt(row?.uncollected ?? 0),
        queueDepth: Number(row?.queue ?? 0),
      }
    },

    /**
     * Settled per-call x402 revenue (key top-ups are deposits, not revenue) and how many distinct
     * payers it came from, platform-wide or attributed to one key.
     */
    async callRevenue(keyId?: string): Promise<{ micros: Micros; payers: number }> {
      const [row] = await db
        .select({
          total: sql<string>`coalesce(sum(${settlements.amountMicros}), 0)`,
          payers: sql<number>`count(distinct ${settlements.payer})`,
        })
        .from(settlements)
        .where(
          and(
            eq(settlements.status, 'SETTLED'),
            not(sql`${settlements.operation} like ${`${KEY_UPGRADE_OPERATION_ID}%`}`),
            keyId === undefined ? undefined : eq(settlements.keyId, keyId),
          ),
        )
      return { micros: BigInt(row?.total ?? 0), payers: Number(row?.payers ?? 0) }
    },
  }
}

export type SettlementLedger = ReturnType<typeof createSettlementLedger>
