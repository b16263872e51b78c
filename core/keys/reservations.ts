import { randomUUID } from 'node:crypto'
import { type SQL, sql } from 'drizzle-orm'
import { ServiceError } from '../errors.ts'
import type { Micros } from '../money.ts'
import { createKeyedBatcher } from '../store/batcher.ts'
import { type Db, executePrepared, rowsOf } from '../store/database.ts'
import { type GroupCommit, groupCommitOf, StatementParams } from '../store/group-commit.ts'
import type { DeliveryJournal } from './delivery-journal.ts'

/**
 * Key debits as durable reservations, so a key is charged exactly for the answers it received.
 *
 * reserve  takes the amount from the balance and writes a reservation row, in one statement;
 * capture  stamps the row once the answer was delivered (every byte handed to the transport):
 *          the debit stands;
 * release  deletes the row and gives the amount back, in one statement, so it happens once
 *          whatever retries or sweeps race it: the call failed, or its answer was not delivered.
 * A release that cannot be written now stays queued in this process and is retried by `sweep`;
 * so does a capture (the answer was delivered: its debit must stand). A process that dies leaves
 * its open rows to the next process's sweep, which releases every uncaptured row of an instance
 * the database reports dead (Database.isAlive): an answer not confirmed delivered is not charged,
 * even when it was produced and stored under an Idempotency-Key (that stored answer is deleted
 * with the release, so a retry runs again and is charged once). The sweep also frees the
 * Idempotency-Key claims such a process held, so a retry runs at once. Captured rows are deleted a
 * minute later. The one window left is between the last byte handed to the kernel and the capture
 * reaching the database: a process killed in it has delivered an answer it is not paid for (never
 * the other way round).
 */
export interface KeyReservations {
  /** Debits `amount` and records the reservation atomically; null when the balance does not cover it. */
  reserve(keyId: string, amount: Micros, operation: string): Promise<{ id: string; balance: Micros } | null>
  /**
   * The answer was delivered: the debit stands. Throws `unavailable` when the reservation was
   * already released; a capture that could not be written is retried by sweep (and throws).
   */
  capture(id: string): Promise<void>
  /**
   * The call gave no answer: the amount goes back, at most once, even when a capture whose outcome
   * is in doubt went through. Never throws; a failure is retried by sweep.
   */
  release(id: string): Promise<void>
  /**
   * Retries this process's failed captures and releases, then releases the reservations (and frees
   * the Idempotency-Key claims) of processes that are gone. Returns how many reservations were
   * released.
   */
  sweep(isAlive: (instanceId: string) => Promise<boolean>): Promise<number>
  /** Releases this process could not write yet (they are retried by sweep). */
  pendingReleases(): number
  /** Captures this process could not write yet (they are retried by sweep). */
  pendingCaptures(): number
  /**
   * Waits for the captures and releases under way (calls whose delivery was just settled), so a
   * process that stops cleanly leaves none to the next sweep. Call before closing the database.
   */
  drain(): Promise<void>
}

export interface KeyReservationsOptions {
  db: Db
  /** This process (Database.holdLiveness holds it alive). */
  instanceId: string
  onError?: (error: unknown) => void
  /** Where captures share a statement with the other writes of the same calls; absent: their own. */
  group?: GroupCommit
  /** Where deliveries are recorded before their captures commit; absent: a crash in between releases them. */
  journal?: DeliveryJournal
}

interface ReserveItem {
  id: string
  amount: Micros
  operation: string
}

type ReserveResult = { ok: true; balance: Micros } | { ok: false }

/**
 * Debits a key for a batch of reservations and writes their rows, in one statement (reserveAll).
 * $1 key id, $2 total, $3 calls, $4 this process, $5-$7 the reservations' ids, operations, amounts.
 */
const RESERVE_STATEMENT = `
  with debited as (
    update api_keys
       set balance_micros = balance_micros - $2::bigint,
           spent_micros = spent_micros + $2::bigint,
           call_count = call_count + $3::int
     where id = $1::text and balance_micros >= $2::bigint
    returning balance_micros
  ), reserved as (
    insert into key_reservations (id, key_id, operation, amount_micros, instance_id)
    select r.id, $1::text, r.operation, r.amount, $4::text
      from unnest($5::text[], $6::text[], $7::bigint[]) as r(id, operation, amount)
     where exists (select 1 from debited)
  )
  select balance_micros as balance from debited`

export function createKeyReservations({
  db,
  instanceId,
  onError,
  group = groupCommitOf(db),
  journal,
}: KeyReservationsOptions): KeyReservations {
  const pending = new Set<string>()
  const pendingCapture = new Set<string>()
  const underWay = new Set<Promise<unknown>>()
  /** Runs a capture or release, tracked until it ends so `drain` can wait for it. */
  function tracked<T>(work: Promise<T>): Promise<T> {
    underWay.add(work)
    const done = () => void underWay.delete(work)
    work.then(done, done)
    return work
  }

  /**
   * One statement: the balance is debited only when it covers every item, and the reservation
   * rows are written only when the debit happened (data-modifying CTEs commit together). The
   * items are bound as arrays, so the text is the same for any batch: prepared once per connection.
   */
  async function reserveAll(keyId: string, items: readonly ReserveItem[]): Promise<Micros | null> {
    const total = items.reduce((sum, item) => sum + item.amount, 0n)
    const rows = await executePrepared(db, RESERVE_STATEMENT, [
      keyId,
      total.toString(),
      items.length,
      instanceId,
      items.map((item) => item.id),
      items.map((item) => item.operation),
      items.map((item) => item.amount.toString()),
    ])
    const row = rows[0]
    return row ? BigInt(String(row.balance)) : null
  }

  /**
   * Reservations queued for one key go out together: one statement takes the sum when the
   * balance covers all of them; otherwise each is tried alone in arrival order, so the balance
   * never overdraws and exactly the covered calls succeed.
   */
  const reserveBatch = createKeyedBatcher<ReserveItem, ReserveResult>(async (keyId, items) => {
    const balance = await reserveAll(keyId, items)
    if (balance !== null) {
      const results: ReserveResult[] = new Array(items.length)
      let after = balance
      for (let i = items.length - 1; i >= 0; i--) {
        results[i] = { ok: true, balance: after }
        after += items[i]!.amount
      }
      return results
    }
    if (items.length === 1) return [{ ok: false }]
    const results: ReserveResult[] = []
    for (const item of items) {
      const single = await reserveAll(keyId, [item])
      results.push(single === null ? { ok: false } : { ok: true, balance: single })
    }
    return results
  })

  /**
   * The captures of a batch: the reservations stamped, and the Idempotency-Key answers written
   * under them marked `done` (core/idempotency), so an answer is replayable exactly when its debit
   * stands. CTEs named from `prefix`, the ids bound as one array; the query returns the ids captured.
   */
  function captureCtes(ids: readonly string[], prefix: string, params: StatementParams) {
    const captured = `${prefix}captured`
    return {
      ctes: [
        `${captured} as (
            update key_reservations set captured_at = now()
             where id = any(${params.add(ids)}::text[]) and captured_at is null
            returning id
          )`,
        `${prefix}answered as (
            update idempotency_records set state = 'done', updated_at = now()
             where reservation_id in (select id from ${captured}) and state = 'in_progress'
          )`,
      ],
      result: `select id::text as r from ${captured}`,
    }
  }

  const capturedOf = (values: readonly unknown[], ids: readonly string[]) => {
    const captured = new Set(values.map(String))
    return ids.map((id) => captured.has(id))
  }

  /** The captures of a batch in a statement of their own. */
  async function captureAlone(ids: readonly string[]): Promise<unknown[]> {
    const params = new StatementParams()
    const { ctes, result } = captureCtes(ids, '', params)
    const rows = await executePrepared(db, `with ${ctes.join(', ')} ${result}`, params.values)
    return rows.map((row) => row.r)
  }

  /**
   * Captures of concurrent calls share one UPDATE, in the statement the other writes of those
   * calls share when `group` is given (core/store/group-commit.ts). A reservation that is already
   * gone was released (a sweep took this process for dead, e.g. after PostgreSQL restarted and
   * dropped its liveness lock): the answer was delivered free, never charged twice.
   */
  const captureBatch = group.part<string, boolean>({
    statement: async (ids, prefix, params) => captureCtes(ids, prefix, params),
    results: async (values, ids) => capturedOf(values, ids),
    alone: async (ids) => capturedOf(await captureAlone(ids), ids),
  })

  /**
   * Deletes the given reservations and refunds what they held, per key, in one statement, with
   * the Idempotency-Key answers written under them (an answer that was not paid is never replayed,
   * and the key is free for a retry).
   */
  async function releaseWhere(condition: SQL): Promise<number> {
    const result = await db.execute(sql`
      with released as (
        delete from key_reservations where ${condition}
        returning id, key_id, amount_micros
      ), unpaid_answers as (
        delete from idempotency_records where reservation_id in (select id from released)
      ), per_key as (
        select key_id, sum(amount_micros)::bigint as amount, count(*)::int as calls
          from released group by key_id
      ), refunded as (
        update api_keys
           set balance_micros = api_keys.balance_micros + per_key.amount,
               spent_micros = api_keys.spent_micros - per_key.amount,
               call_count = api_keys.call_count - per_key.calls
          from per_key
         where api_keys.id = per_key.key_id
        returning per_key.calls
      )
      select coalesce(sum(calls), 0)::int as released from refunded`)
    return Number(rowsOf<{ released: unknown }>(result)[0]?.released ?? 0)
  }

  /** Captures the reservations a gone process journaled as delivered, 1,000 per statement. */
  async function captureDelivered(ids: readonly string[]): Promise<void> {
    for (let start = 0; start < ids.length; start += 1_000)
      await captureAlone(ids.slice(start, start + 1_000))
  }

  async function releaseNow(id: string): Promise<number> {
    const released = await releaseWhere(sql`id = ${id}`)
    pending.delete(id)
    return released
  }

  return {
    async reserve(keyId, amount, operation) {
      const id = randomUUID()
      try {
        const result = await reserveBatch(keyId, { id, amount, operation })
        return result.ok ? { id, balance: result.balance } : null
      } catch (error) {
        // The debit may have committed before the connection dropped: undo it later if it did.
        pending.add(id)
        throw error
      }
    },

    async capture(id) {
      // First, before anything yields to the event loop: a process killed from here on is paid.
      journal?.delivered(id)
      let captured: boolean
      try {
        captured = await tracked(captureBatch(id))
      } catch (error) {
        // The answer was delivered: the debit must stand, so the capture is retried by sweep.
        pendingCapture.add(id)
        throw error
      }
      journal?.settled(id)
      if (!captured) {
        throw new ServiceError(
          'unavailable',
          'the charge of this call was released before its answer; try again',
          {
            retryAfter: 1,
          },
        )
      }
    },

    async release(id) {
      try {
        await tracked(releaseNow(id))
      } catch (error) {
        pending.add(id)
        onError?.(error)
      }
    },

    async sweep(isAlive) {
      let released = 0
      for (const id of [...pendingCapture]) {
        try {
          await captureBatch(id) // false: released meanwhile (a sweep took this process for dead)
          pendingCapture.delete(id)
          journal?.settled(id)
        } catch (error) {
          onError?.(error) // still pending: the next sweep tries again
        }
      }
      for (const id of [...pending]) {
        try {
          released += await releaseNow(id)
        } catch (error) {
          onError?.(error) // still pending: the next sweep tries again; the others go on
        }
      }
      // Own captured rows are final once no in-doubt release can need them.
      await db.execute(
        sql`delete from key_reservations where instance_id = ${instanceId} and captured_at < now() - interval '1 minute'`,
      )
      const owners = rowsOf<{ instance_id: string }>(
        await db.execute(sql`
          select instance_id from key_reservations where instance_id <> ${instanceId}
          union
          select instance_id from idempotency_records
           where state = 'in_progress' and instance_id is not null and instance_id <> ${instanceId}`),
      )
      for (const { instance_id: owner } of owners) {
        if (await isAlive(owner)) continue
        // Answers it delivered whose captures had not committed: their debits stand.
        await captureDelivered(journal?.deliveredBy(owner) ?? [])
        released += await releaseWhere(sql`instance_id = ${owner} and captured_at is null`)
        // Only captured rows: should the owner still run (it lost its lock for a moment), a row it
        // reserved since the release above is left for the next sweep, not deleted unrefunded.
        await db.execute(
          sql`delete from key_reservations where instance_id = ${owner} and captured_at is not null`,
        )
        // Claims it held with no answer stored under a reservation: free, so a retry runs now.
        await db.execute(
          sql`delete from idempotency_records where instance_id = ${owner} and state = 'in_progress'`,
        )
        journal?.forget(owner)
      }
      return released
    },

    pendingReleases: () => pending.size,
    pendingCaptures: () => pendingCapture.size,

    async drain() {
      while (underWay.size > 0) await Promise.allSettled([...underWay])
    },
  }
}
