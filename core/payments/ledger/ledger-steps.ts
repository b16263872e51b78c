import type { Db } from '../../store/database.ts'
import type { GroupCommit } from '../../store/group-commit.ts'
import { combineSteps, firstOfEach, groupedLedgerStep, type LedgerStep } from './grouped-write.ts'
import { TOP_UP_PATTERN } from './settlement-rows.ts'

/** A verified payment's row, as the reserve step inserts it. */
export interface ReserveItem {
  id: string
  paymentId: string
  network: string
  payer: string
  amount: string
  operation: string
  keyId: string | null
  /** The process that reserves it (the sweep reads it). */
  instanceId: string
  /** The stored payment (stored-payment.ts) as JSON text. */
  payment: string
  validBefore: string | null
}

export interface SettledItem {
  id: string
  transaction: string | null
  fallback: boolean
  /** ISO time: settled_at and updated_at. */
  at: string
}

export interface AnswerItem {
  id: string
  requestHash: string
  status: number
  body: string | null
}

/**
 * Whether each item's id came back from the statement. A batch holds each settlement row once: the
 * steps name their row (`rowOf`), and an item whose row an earlier item writes goes after the
 * shared statement, alone (grouped-write.ts), so a row's second move finds it moved and a later
 * kept answer replaces an earlier one, as when each is written in turn.
 */
function idsReturned<I extends { id: string }>(values: readonly unknown[], items: readonly I[]) {
  const returned = new Set(values.map(String))
  return items.map((item) => returned.has(item.id))
}

const byId = (item: { id: string }) => item.id

/** A verified payment's row, inserted in phase `reserved` before its operation runs. */
const reserveStep: LedgerStep<ReserveItem> = {
  rowOf: byId,
  statement(items, prefix, params) {
    const column = (pick: (item: ReserveItem) => unknown) => `${params.add(items.map(pick))}::text[]`
    return {
      ctes: [
        `${prefix}reserved as (
            insert into settlements (id, payment_id, status, phase, network, payer, amount_micros, operation,
                                     key_id, instance_id, payment, valid_before)
            select r.id, r.payment_id, 'PENDING', 'reserved', r.network, r.payer, r.amount::bigint, r.operation,
                   r.key_id, r.instance_id, r.payment::jsonb, r.valid_before::timestamptz
              from unnest(${column((i) => i.id)}, ${column((i) => i.paymentId)}, ${column((i) => i.network)},
                          ${column((i) => i.payer)}, ${column((i) => i.amount)}, ${column((i) => i.operation)},
                          ${column((i) => i.keyId)}, ${column((i) => i.instanceId)}, ${column((i) => i.payment)},
                          ${column((i) => i.validBefore)})
                   as r(id, payment_id, network, payer, amount, operation, key_id, instance_id, payment, valid_before)
            returning id
          )`,
      ],
      result: `select id as r from ${prefix}reserved`,
    }
  },
  outcomes: idsReturned,
}

const firstAttemptStep: LedgerStep<{ id: string; now: string }> = {
  rowOf: byId,
  statement(items, prefix, params) {
    return {
      ctes: [
        `${prefix}begun as (
            update settlements s
               set phase = 'settling', attempts = s.attempts + 1, updated_at = u.now::timestamptz
              from unnest(${params.add(items.map((i) => i.id))}::text[], ${params.add(items.map((i) => i.now))}::text[])
                   as u(id, now)
             where s.id = u.id and s.status = 'PENDING' and s.phase = 'reserved'
            returning s.id
          )`,
      ],
      result: `select id as r from ${prefix}begun`,
    }
  },
  outcomes: idsReturned,
}

// Not a top-up: a top-up row is settled with its key's credit in one transaction (markSettled).
const settledStep: LedgerStep<SettledItem> = {
  rowOf: byId,
  statement(items, prefix, params) {
    const column = (pick: (item: SettledItem) => unknown) => `${params.add(items.map(pick))}::text[]`
    return {
      ctes: [
        `${prefix}settled as (
            update settlements s
               set status = 'SETTLED', phase = 'done', "transaction" = u.tx, fallback = u.fallback::boolean,
                   settled_at = u.at::timestamptz, last_error = null, updated_at = u.at::timestamptz
              from unnest(${column((i) => i.id)}, ${column((i) => i.transaction)}, ${column((i) => String(i.fallback))},
                          ${column((i) => i.at)}) as u(id, tx, fallback, at)
             where s.id = u.id and s.status = 'PENDING' and s.phase in ('settling', 'unknown')
               and s.operation not like ${params.add(TOP_UP_PATTERN)}::text
            returning s.id
          )`,
      ],
      result: `select id as r from ${prefix}settled`,
    }
  },
  outcomes: idsReturned,
}

// Kept unless the payment failed.
const keepAnswerStep: LedgerStep<AnswerItem> = {
  rowOf: byId,
  statement(items, prefix, params) {
    const column = (pick: (item: AnswerItem) => unknown) => `${params.add(items.map(pick))}::text[]`
    return {
      ctes: [
        `${prefix}kept as (
            update settlements s
               set request_hash = u.request_hash, answer_status = u.status::int, answer_body = u.body
              from unnest(${column((i) => i.id)}, ${column((i) => i.requestHash)}, ${column((i) => String(i.status))},
                          ${column((i) => i.body)}) as u(id, request_hash, status, body)
             where s.id = u.id and s.status <> 'FAILED'
            returning s.id
          )`,
      ],
      result: `select id as r from ${prefix}kept`,
    }
  },
  outcomes: idsReturned,
}

/** A nonce claim (nonce-table.ts): payer and nonce lower-cased. */
export interface NonceClaim {
  network: string
  payer: string
  nonce: string
  expiresAt: string
  /** When the claim was made (ms). */
  now: number
}

const claimKey = (claim: { network: unknown; payer: unknown; nonce: unknown }) =>
  JSON.stringify([claim.network, claim.payer, claim.nonce])

/**
 * Claims nonces: each is inserted, or takes over a row whose window has passed; returns the nonces
 * it claimed. Only the first claim of a nonce in a batch is sent (PostgreSQL refuses to touch a row
 * twice in one ON CONFLICT statement), so a later duplicate loses, as it would one statement later.
 */
const nonceClaimStep: LedgerStep<NonceClaim> = {
  statement(items, prefix, params) {
    const first = firstOfEach(items, claimKey)
    const sent = items.filter((_, index) => first[index])
    // A window has passed when it ended at or before the latest claim of the batch (the claims
    // queued while the previous statement was in flight, so a statement's time apart at most); a
    // row taken over starts then.
    const now = params.add(
      new Date(items.length > 0 ? Math.max(...items.map((item) => item.now)) : 0).toISOString(),
    )
    const column = (pick: (claim: NonceClaim) => unknown) => `${params.add(sent.map(pick))}::text[]`
    return {
      ctes: [
        `${prefix}claimed as (
          insert into payment_nonces (network, payer, nonce, expires_at)
          select c.network, c.payer, c.nonce, c.expires_at::timestamptz
            from unnest(${column((c) => c.network)}, ${column((c) => c.payer)}, ${column((c) => c.nonce)},
                        ${column((c) => c.expiresAt)}) as c(network, payer, nonce, expires_at)
          on conflict (network, payer, nonce) do update
             set expires_at = excluded.expires_at, created_at = ${now}::timestamptz
           where payment_nonces.expires_at <= ${now}::timestamptz
          returning network, payer, nonce
        )`,
      ],
      result: `select json_build_array(network, payer, nonce)::text as r from ${prefix}claimed`,
    }
  },
  outcomes(values, items) {
    // json_build_array's text spaces its elements: parsed and written again as claimKey writes it.
    const claimed = new Set(values.map((value) => JSON.stringify(JSON.parse(String(value)))))
    const first = firstOfEach(items, claimKey)
    return items.map((item, index) => first[index]! && claimed.has(claimKey(item)))
  },
}

/** The ledger's hot writes: one writer per step, all of them one kind of the group commit. */
export interface LedgerWrites {
  claimNonce(claim: NonceClaim): Promise<boolean>
  reserve(item: ReserveItem): Promise<boolean>
  firstAttempt(item: { id: string; now: string }): Promise<boolean>
  settled(item: SettledItem): Promise<boolean>
  keepAnswer(item: AnswerItem): Promise<boolean>
}

const writesByGroup = new WeakMap<GroupCommit, LedgerWrites>()

/**
 * The ledger steps every x402 call takes, shared by the calls queued together (grouped-write.ts):
 * the nonce claim, the settlement row's insert, its first attempt, SETTLED, and the answer kept. Each is the
 * same guarded statement the step runs alone, over the batch's rows (`unnest`), returning the ids it
 * wrote, so each call learns exactly its own row's outcome. A statement writes a row at most once:
 * a later step on the same row is written after it, alone (idsReturned).
 */
export function ledgerWritesOf(db: Db, group: GroupCommit): LedgerWrites {
  let writes = writesByGroup.get(group)
  if (!writes) {
    // One kind for all five steps, so the ledger adds one kind to the group commit's statements.
    const write = groupedLedgerStep(
      db,
      group,
      combineSteps({
        claim: nonceClaimStep,
        reserve: reserveStep,
        begin: firstAttemptStep,
        settled: settledStep,
        kept: keepAnswerStep,
      }),
    )
    writes = {
      claimNonce: (item) => write({ step: 'claim', item }),
      reserve: (item) => write({ step: 'reserve', item }),
      firstAttempt: (item) => write({ step: 'begin', item }),
      settled: (item) => write({ step: 'settled', item }),
      keepAnswer: (item) => write({ step: 'kept', item }),
    }
    writesByGroup.set(group, writes)
  }
  return writes
}
