import { createHash, randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { canonicalJson } from '../canonical-json.ts'
import { type Db, rowsOf } from '../store/database.ts'

/**
 * How long an `in_progress` claim is honoured. Longer than any operation runs (the slowest, a
 * batch of 100 leads, is bounded at about 65 s: 5 s source timeouts, 8 calls at a time per
 * source), so a claim this old belongs to a process that died while the operation ran: the next
 * call with the same key takes it over. The dead process's key reservation is released by the
 * payment worker's sweep, so the taken-over call is the only one charged. (A process that died
 * after writing its answer under its reservation frees the key sooner: the sweep deletes it.)
 */
export const IDEMPOTENCY_TAKEOVER_MS = 2 * 60_000

/** Retry-After of a 409 while the first call with the same key still runs. */
export const IDEMPOTENCY_RETRY_AFTER_SECONDS = 2

/** The stored answer of a paid call, replayed unchanged. */
export interface StoredAnswer {
  status: number
  /** JSON text of the operation's output; null for a 204. */
  body: string | null
}

export type IdempotencyClaim =
  /** This call holds the key: run it, then `complete` or `release` with `claimId`. */
  | { kind: 'claimed'; claimId: string }
  /** The key was used with a different request (another operation, tier or input). */
  | { kind: 'mismatch' }
  /** The key was answered before: replay this answer, charge nothing. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** A call with this key is still running; retry after `retryAfter` seconds. */
  | { kind: 'in_progress'; retryAfter: number }

export interface ClaimRequest {
  keyId: string
  idempotencyKey: string
  operation: string
  requestHash: string
  now: Date
}

/**
 * Idempotency-Key records of key-paid calls (table idempotency_records), scoped per API key.
 * claim    INSERT … ON CONFLICT DO NOTHING: the first call holds the key; a later one reads the row
 *          (replay, mismatch, still running) or takes over a claim older than IDEMPOTENCY_TAKEOVER_MS;
 * answer   writes the answer under a key debit's reservation before its capture: the capture
 *          statement marks it done, a release deletes it (core/keys/reservations.ts), so the
 *          answer is replayable exactly when the debit stands, even if the process dies between;
 * complete stores the answer once the call was paid (state done), for charges without a
 *          reservation or when `answer` could not be written;
 * release  deletes the claim of a call that charged nothing (it failed, or its answer was not
 *          delivered: then with the answer `complete` stored), so a retry runs.
 * complete and release act only on the caller's own claim (`claimId`): a process whose claim was
 * taken over changes nothing.
 */
export interface IdempotencyStore {
  claim(request: ClaimRequest): Promise<IdempotencyClaim>
  /** True when the answer was written under the reservation (the claim is still this call's). */
  answer(
    keyId: string,
    idempotencyKey: string,
    claimId: string,
    answer: StoredAnswer,
    reservationId: string,
  ): Promise<boolean>
  complete(
    keyId: string,
    idempotencyKey: string,
    claimId: string,
    answer: StoredAnswer,
    now: Date,
  ): Promise<void>
  release(keyId: string, idempotencyKey: string, claimId: string): Promise<void>
}

/** SHA-256 (hex) of the canonical JSON (RFC 8785) of what makes two calls the same request. */
export function idempotencyRequestHash(operation: string, quality: string, input: unknown): string {
  const canonical = canonicalJson({ operation, quality, input: input ?? null }) ?? ''
  return createHash('sha256').update(canonical).digest('hex')
}

/** An Idempotency-Key value: 1 to 255 printable ASCII characters (space to tilde). */
export function isValidIdempotencyKey(value: string): boolean {
  return /^[\x20-\x7e]{1,255}$/.test(value)
}

interface RecordRow {
  operation: string
  request_hash: string
  state: string
  claim_id: string
  response_status: number | null
  response_body: string | null
  updated_at: unknown
}

export interface IdempotencyStoreOptions {
  /**
   * This process (Database.holdLiveness), written on its claims: should it die, the key
   * reservations sweep frees them, so a retry runs at once instead of after the takeover delay.
   */
  instanceId?: string
}

export function createIdempotencyStore(db: Db, options: IdempotencyStoreOptions = {}): IdempotencyStore {
  const instanceId = options.instanceId ?? null
  async function insert(request: ClaimRequest, claimId: string): Promise<boolean> {
    const at = request.now.toISOString()
    const rows = rowsOf<{ claim_id: string }>(
      await db.execute(sql`
        insert into idempotency_records
          (key_id, idempotency_key, operation, request_hash, state, claim_id, instance_id, created_at, updated_at)
        values (${request.keyId}, ${request.idempotencyKey}, ${request.operation}, ${request.requestHash},
                'in_progress', ${claimId}, ${instanceId}, ${at}::timestamptz, ${at}::timestamptz)
        on conflict do nothing
        returning claim_id`),
    )
    return rows.length > 0
  }

  async function read(request: ClaimRequest): Promise<RecordRow | undefined> {
    return rowsOf<RecordRow>(
      await db.execute(sql`
        select operation, request_hash, state, claim_id, response_status, response_body, updated_at
          from idempotency_records
         where key_id = ${request.keyId} and idempotency_key = ${request.idempotencyKey}`),
    )[0]
  }

  /** Takes over a stale claim, unless another call took it over or finished it meanwhile. */
  async function takeOver(request: ClaimRequest, previous: string, claimId: string): Promise<boolean> {
    const rows = rowsOf<{ claim_id: string }>(
      await db.execute(sql`
        update idempotency_records
           set claim_id = ${claimId}, instance_id = ${instanceId},
               updated_at = ${request.now.toISOString()}::timestamptz,
               reservation_id = null, response_status = null, response_body = null
         where key_id = ${request.keyId} and idempotency_key = ${request.idempotencyKey}
           and state = 'in_progress' and claim_id = ${previous}
        returning claim_id`),
    )
    return rows.length > 0
  }

  return {
    async claim(request) {
      const claimId = randomUUID()
      // A row deleted between the insert and the read (released, or removed by retention) is
      // claimed on the next round.
      for (let round = 0; round < 3; round++) {
        if (await insert(request, claimId)) return { kind: 'claimed', claimId }
        const row = await read(request)
        if (!row) continue
        if (row.operation !== request.operation || row.request_hash !== request.requestHash) {
          return { kind: 'mismatch' }
        }
        if (row.state === 'done') {
          return {
            kind: 'replay',
            answer: { status: Number(row.response_status ?? 200), body: row.response_body },
          }
        }
        const updated = row.updated_at instanceof Date ? row.updated_at : new Date(String(row.updated_at))
        const age = request.now.getTime() - updated.getTime()
        if (age < IDEMPOTENCY_TAKEOVER_MS) {
          return { kind: 'in_progress', retryAfter: IDEMPOTENCY_RETRY_AFTER_SECONDS }
        }
        if (await takeOver(request, row.claim_id, claimId)) return { kind: 'claimed', claimId }
      }
      return { kind: 'in_progress', retryAfter: IDEMPOTENCY_RETRY_AFTER_SECONDS }
    },

    async answer(keyId, idempotencyKey, claimId, answer, reservationId) {
      const rows = rowsOf<{ claim_id: string }>(
        await db.execute(sql`
          update idempotency_records
             set response_status = ${answer.status}, response_body = ${answer.body},
                 reservation_id = ${reservationId}
           where key_id = ${keyId} and idempotency_key = ${idempotencyKey}
             and claim_id = ${claimId} and state = 'in_progress'
          returning claim_id`),
      )
      return rows.length > 0
    },

    async complete(keyId, idempotencyKey, claimId, answer, now) {
      await db.execute(sql`
        update idempotency_records
           set state = 'done', response_status = ${answer.status}, response_body = ${answer.body},
               updated_at = ${now.toISOString()}::timestamptz
         where key_id = ${keyId} and idempotency_key = ${idempotencyKey}
           and claim_id = ${claimId} and state = 'in_progress'`)
    },

    async release(keyId, idempotencyKey, claimId) {
      await db.execute(sql`
        delete from idempotency_records
         where key_id = ${keyId} and idempotency_key = ${idempotencyKey} and claim_id = ${claimId}`)
    },
  }
}
