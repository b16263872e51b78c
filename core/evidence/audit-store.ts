import canonicalize from 'canonicalize'
import { and, asc, eq, gt, gte, inArray, lt, lte, ne, sql } from 'drizzle-orm'
import { compactVerify, importJWK } from 'jose'
import type { Clock } from '../context.ts'
import type { ReportSigner } from '../reports/evidence.ts'
import { tokenSortedKey } from '../sanctions/name-normaliser.ts'
import { type Db, type DbTransaction, executePrepared } from '../store/database.ts'
import { type GroupCommit, groupCommitOf, StatementParams } from '../store/group-commit.ts'
import { auditEvents } from '../store/tables/evidence.ts'
import {
  CHAINED_FIELDS,
  type ChainedFields,
  GENESIS_HASH,
  sealAuditRow,
  subjectSha256,
} from './audit-chain.ts'

/** The columns of audit_events an append binds, each as one array, in insert order; `head_seq` last. */
const AUDIT_COLUMNS = [
  { name: 'chain', type: 'text' },
  { name: 'seq', type: 'bigint' },
  { name: 'key_id', type: 'text' },
  // timestamptz written from its ISO text, like detail (postgres.js binds no timestamptz[])
  { name: 'at', type: 'text' },
  { name: 'kind', type: 'text' },
  { name: 'action', type: 'text' },
  { name: 'outcome', type: 'text' },
  { name: 'subject', type: 'text' },
  { name: 'subject_sha256', type: 'text' },
  { name: 'paid_with', type: 'text' },
  { name: 'amount_micros', type: 'bigint' },
  { name: 'receipt_id', type: 'text' },
  { name: 'receipt', type: 'text' },
  // jsonb written from its JSON text (cast in the insert)
  { name: 'detail', type: 'text' },
  { name: 'field_digests', type: 'text' },
  { name: 'prev_hash', type: 'text' },
  { name: 'hash', type: 'text' },
  { name: 'head_seq', type: 'bigint' },
] as const

type AuditColumns = Record<(typeof AUDIT_COLUMNS)[number]['name'], (string | null)[]>

/** The stored columns (all but head_seq), as the insert lists them, and as it selects them from the arrays. */
const AUDIT_INSERTED = AUDIT_COLUMNS.slice(0, -1)
  .map((column) => column.name)
  .join(', ')
const AUDIT_SELECTED = AUDIT_COLUMNS.slice(0, -1)
  .map((column) =>
    column.name === 'detail' ? 'detail::jsonb' : column.name === 'at' ? 'at::timestamptz' : column.name,
  )
  .join(', ')

const auditColumns = (): AuditColumns =>
  Object.fromEntries(AUDIT_COLUMNS.map((column) => [column.name, []])) as unknown as AuditColumns

/** What happened, as the caller of append describes it (the chain fields are added by the store). */
export interface AuditEventInput {
  /** `key:<id>`, `x402:<network>:<payer>`, or `platform` (operator changes). */
  chain: string
  keyId: string | null
  at: Date
  /** `call` (a paid answer), `change` (a key, webhook or watchlist change). */
  kind: 'call' | 'change'
  /** The operation id, or the change (`key.create`, `webhook.delete`, ...). */
  action: string
  outcome: string
  /** Who or what the call was about, as given; chained as its SHA-256 only. */
  subject?: string
  paidWith?: string
  amountMicros?: bigint
  receiptId?: string
  receipt?: unknown
  /** The receipt's content SHA-256, when known (saves canonicalizing it again). */
  receiptContentSha256?: string
  /** Anything else worth keeping; never personal data (it is chained and cannot be erased). */
  detail?: Record<string, unknown>
}

/** One row of the trail as the API shows it. */
export interface AuditRow {
  id: string
  chain: string
  seq: string
  key_id: string | null
  at: string
  kind: string
  action: string
  outcome: string
  subject: string | null
  subject_sha256: string | null
  paid_with: string | null
  amount_micros: string | null
  receipt_id: string | null
  detail: unknown
  prev_hash: string
  hash: string
}

export interface TrailFilter {
  /** Restricts to one chain (a customer's own); absent: every chain (the operator's view). */
  chain?: string
  keyId?: string
  from?: Date
  to?: Date
  action?: string
  subject?: string
  /** Rows after this id (the cursor of the previous page). */
  after?: bigint
  limit: number
}

/** The first link of a chain that does not verify. */
export interface BrokenLink {
  chain: string
  row_id: string
  seq: string
  /** The field found changed (`amount_micros`, `prev_hash`, `seq`, `hash`, `subject`, `content`, `signature`). */
  field: string
  problem: string
}

export interface ChainVerification {
  ok: boolean
  chains: number
  rows: number
  /** The first broken link, in chain then sequence order; absent when everything verifies. */
  first_broken?: BrokenLink
  /** The first broken link of each chain that does not verify (the operator's view of every chain). */
  broken_chains: BrokenLink[]
  checkpoints: number
}

type StoredRow = typeof auditEvents.$inferSelect

function chainedOf(row: StoredRow): ChainedFields {
  return {
    chain: row.chain,
    seq: row.seq,
    key_id: row.keyId,
    at: row.at,
    kind: row.kind,
    action: row.action,
    outcome: row.outcome,
    subject_sha256: row.subjectSha256,
    paid_with: row.paidWith,
    amount_micros: row.amountMicros,
    receipt_id: row.receiptId,
    receipt: row.receipt === null ? null : JSON.parse(row.receipt),
    detail: row.detail,
    prev_hash: row.prevHash,
  }
}

/** A stored row as the API shows it. */
export function auditRowView(row: StoredRow): AuditRow {
  return {
    id: row.id.toString(),
    chain: row.chain,
    seq: row.seq.toString(),
    key_id: row.keyId,
    at: row.at.toISOString(),
    kind: row.kind,
    action: row.action,
    outcome: row.outcome,
    subject: row.subject,
    subject_sha256: row.subjectSha256,
    paid_with: row.paidWith,
    amount_micros: row.amountMicros === null ? null : row.amountMicros.toString(),
    receipt_id: row.receiptId,
    detail: row.detail,
    prev_hash: row.prevHash,
    hash: row.hash,
  }
}

/** The chain lock: one appender per chain at a time, across every process on the database. */
const lockChain = (tx: DbTransaction, chain: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(8128, hashtext(${chain}))`)

/** The last row of a chain (its seq and hash), or the genesis when it has none. */
async function chainHead(tx: Db | DbTransaction, chain: string): Promise<{ seq: bigint; hash: string }> {
  const [last] = await tx
    .select({ seq: auditEvents.seq, hash: auditEvents.hash })
    .from(auditEvents)
    .where(eq(auditEvents.chain, chain))
    .orderBy(sql`${auditEvents.seq} desc`)
    .limit(1)
  return last ?? { seq: 0n, hash: GENESIS_HASH }
}

/**
 * Another appender took the seq this batch meant to use: a violation (SQLSTATE 23505) of the
 * unique (chain, seq), from the driver or wrapped by drizzle. Any other violation (a receipt id
 * appended twice) is a bug to report, not to retry.
 */
function isSeqTaken(error: unknown): boolean {
  for (
    let current = error;
    current && typeof current === 'object';
    current = (current as { cause?: unknown }).cause
  ) {
    const { code, constraint, constraint_name } = current as Record<string, unknown>
    if (code === '23505') return (constraint ?? constraint_name) === 'audit_events_chain_seq_idx'
  }
  return false
}

/** The stored field digests (JSON text); a row whose digests cannot be read names no field. */
function parseDigests(text: string): Record<string, string> {
  try {
    return JSON.parse(text) as Record<string, string>
  } catch {
    return {}
  }
}

/** The checkpoint content its signature covers. */
function checkpointBytes(
  row: Pick<ChainedFields, 'chain' | 'seq' | 'prev_hash'>,
  hash: string,
  detail: unknown,
) {
  const { signature: _signature, ...rest } = (detail ?? {}) as Record<string, unknown>
  const text = canonicalize({
    chain: row.chain,
    seq: row.seq.toString(),
    prev_hash: row.prev_hash,
    hash,
    detail: rest,
  })
  return Buffer.from(text ?? '', 'utf8')
}

export interface AuditStore {
  /**
   * Appends one event to its chain. Events that arrive together are appended in one statement
   * (with the other writes of the same calls: core/store/group-commit.ts), one insert per chain
   * chained on its head: one round trip per batch.
   */
  append(event: AuditEventInput): Promise<void>
  /** A page of the trail in append order (ascending id), `limit + 1` rows read to tell if more follow. */
  trail(filter: TrailFilter): Promise<{ rows: AuditRow[]; next?: string }>
  /** Re-computes every chain (or one), naming the first broken link. */
  verify(chain?: string): Promise<ChainVerification>
  /** The stored receipt of a paid answer, with the chain it belongs to. */
  receipt(receiptId: string): Promise<{ chain: string; keyId: string | null; receipt: unknown } | undefined>
  /**
   * Drops the rows older than `cutoff` of every chain, each chain's dropped range replaced by one
   * checkpoint row signed by the service key (same seq and hash as the last dropped row, so the
   * next row still links to it). Returns the number of rows dropped.
   */
  dropExpired(cutoff: Date): Promise<number>
  /** Waits for the appends under way, so a process that stops cleanly writes them before the database closes. */
  drain(): Promise<void>
}

/** The audit trail over the `audit_events` table (core/store/tables/evidence.ts). */
export function createAuditStore(options: {
  db: Db
  clock: Clock
  signer: ReportSigner
  onError?: (error: unknown) => void
  /** Where appends share a statement with the other writes of the same calls; absent: their own. */
  group?: GroupCommit
}): AuditStore {
  const { db, signer } = options

  /**
   * The head (last seq and hash) of each chain this process appended to: an append is then one
   * statement, no read. A head another process moved on is noticed by that statement (it
   * inserts nothing, or hits the unique (chain, seq)); the head is then read again and the batch
   * re-chained on it.
   */
  const heads = new Map<string, { seq: bigint; hash: string }>()

  /**
   * Chains `events` after `head`: appends their rows to `columns` and returns the new head. Every
   * row carries the seq of the head it was chained on (`head_seq`), which insertAfter checks.
   */
  function chainRows(
    columns: AuditColumns,
    chain: string,
    head: { seq: bigint; hash: string },
    events: readonly AuditEventInput[],
  ): { seq: bigint; hash: string } {
    let { seq, hash } = head
    for (const event of events) {
      seq += 1n
      const fields: ChainedFields = {
        chain,
        seq,
        key_id: event.keyId,
        at: event.at,
        kind: event.kind,
        action: event.action,
        outcome: event.outcome,
        subject_sha256: event.subject === undefined ? null : subjectSha256(event.subject),
        paid_with: event.paidWith ?? null,
        amount_micros: event.amountMicros ?? null,
        receipt_id: event.receiptId ?? null,
        receipt: event.receipt ?? null,
        detail: event.detail ?? null,
        prev_hash: hash,
        ...(event.receiptContentSha256 ? { receipt_content_sha256: event.receiptContentSha256 } : {}),
      }
      const sealed = sealAuditRow(fields)
      hash = sealed.hash
      const json = (value: unknown) => (value === null ? null : JSON.stringify(value))
      columns.chain.push(chain)
      columns.seq.push(seq.toString())
      columns.key_id.push(fields.key_id)
      columns.at.push(fields.at.toISOString())
      columns.kind.push(fields.kind)
      columns.action.push(fields.action)
      columns.outcome.push(fields.outcome)
      columns.subject.push(event.subject ?? null)
      columns.subject_sha256.push(fields.subject_sha256)
      columns.paid_with.push(fields.paid_with)
      columns.amount_micros.push(fields.amount_micros?.toString() ?? null)
      columns.receipt_id.push(fields.receipt_id)
      columns.receipt.push(json(fields.receipt))
      columns.detail.push(json(fields.detail))
      columns.field_digests.push(JSON.stringify(sealed.digests))
      columns.prev_hash.push(fields.prev_hash)
      columns.hash.push(hash)
      columns.head_seq.push(head.seq.toString())
    }
    return { seq, hash }
  }

  /**
   * The insert of the rows in `columns` (one or more chains, each chained after its head), every
   * column bound as one array: the same text for any batch, so a prepared statement. A chain's rows
   * are inserted only while its head is still the chain's last row; two processes that both think
   * so collide on the unique (chain, seq), and one of them inserts nothing. The guard is a scalar
   * subquery, which PostgreSQL runs per row as one probe of the (chain, seq) index whatever plan it
   * keeps for the prepared statement (a NOT EXISTS becomes an anti join the planner may run as a
   * scan of the whole table, and did while the table grew faster than its statistics). Rows go in
   * in the arrays' order (ids ascend with seq: the trail's order).
   */
  function insertAfter(columns: AuditColumns, params: StatementParams): string {
    const bound = AUDIT_COLUMNS.map((column) => `${params.add(columns[column.name])}::${column.type}[]`)
    return `insert into audit_events (${AUDIT_INSERTED})
          select ${AUDIT_SELECTED}
            from unnest(${bound.join(', ')}) with ordinality
                 as v(${AUDIT_COLUMNS.map((column) => column.name).join(', ')}, ord)
           where coalesce((select max(a.seq) from audit_events a where a.chain = v.chain), 0) <= v.head_seq
           order by ord
          returning chain`
  }

  /**
   * Appends a batch of one chain in its own statement (insertAfter). Either way the loser reads
   * the head again and retries: the chain never forks, and no transaction is held (PGlite runs
   * one at a time for the whole process).
   */
  async function appendBatch(chain: string, events: readonly AuditEventInput[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const head = heads.get(chain) ?? (await chainHead(db, chain))
      const columns = auditColumns()
      const next = chainRows(columns, chain, head, events)
      const params = new StatementParams()
      let inserted = 0
      try {
        inserted = (await executePrepared(db, insertAfter(columns, params), params.values)).length
      } catch (error) {
        heads.delete(chain)
        if (!isSeqTaken(error) || attempt >= 50) throw error
        continue
      }
      if (inserted === events.length) {
        keepHead(chain, next)
        return
      }
      heads.delete(chain)
      if (attempt >= 50) throw new Error(`audit chain ${chain}: could not append after ${attempt} attempts`)
    }
  }

  function keepHead(chain: string, head: { seq: bigint; hash: string }): void {
    if (heads.size >= 10_000) heads.clear()
    heads.set(chain, head)
  }

  /** The events of a batch by chain, each chain's in arrival order. */
  function byChain(events: readonly AuditEventInput[]): Map<string, AuditEventInput[]> {
    const chains = new Map<string, AuditEventInput[]>()
    for (const event of events) {
      const list = chains.get(event.chain)
      if (list) list.push(event)
      else chains.set(event.chain, [event])
    }
    return chains
  }

  /** Each event's outcome once its chain was appended alone: undefined, or the error of its chain. */
  async function appendAlone(events: readonly AuditEventInput[]): Promise<(Error | undefined)[]> {
    const failed = new Map<string, Error>()
    for (const [chain, list] of byChain(events)) {
      try {
        await appendBatch(chain, list)
      } catch (error) {
        failed.set(chain, error instanceof Error ? error : new Error(String(error)))
      }
    }
    return events.map((event) => failed.get(event.chain))
  }

  /** The heads each chain of a shared statement was built on, by batch (weak: a batch whose statement failed leaves nothing). */
  const planned = new WeakMap<readonly AuditEventInput[], Map<string, { seq: bigint; hash: string }>>()

  /**
   * Audit rows share the statement of the other writes of the same calls (a debit's capture, usage
   * rows: core/store/group-commit.ts), one insert for every chain, each in arrival order. A chain
   * another process moved on inserts nothing there and is appended again alone, on its head read
   * again; so is one whose head is not known yet. Appended alone (a batch of audit rows only, or the
   * shared statement failed), a chain keeps the head this process knows: appendBatch reads it again
   * only when the insert shows it moved (nothing inserted, or its seq taken), so an x402 answer's
   * row (whose batch rarely holds anything else) costs no read of its chain's head.
   */
  const appendGrouped = (options.group ?? groupCommitOf(db)).part<AuditEventInput, Error | undefined>({
    async statement(events, prefix, params) {
      const columns = auditColumns()
      const nextHeads = new Map<string, { seq: bigint; hash: string }>()
      for (const [chain, list] of byChain(events)) {
        // A chain whose head this process does not know yet is appended alone once the shared
        // statement committed: reading its head first would hold up every write of the batch.
        const head = heads.get(chain)
        if (!head) continue
        nextHeads.set(chain, chainRows(columns, chain, head, list))
      }
      planned.set(events, nextHeads)
      const name = `${prefix}appended`
      return {
        ctes: [`${name} as (${insertAfter(columns, params)})`],
        result: `select chain as r from ${name}`,
      }
    },
    async results(values, events) {
      const nextHeads = planned.get(events)
      planned.delete(events)
      const inserted = new Map<string, number>()
      for (const value of values) inserted.set(String(value), (inserted.get(String(value)) ?? 0) + 1)
      const again: AuditEventInput[] = []
      for (const [chain, list] of byChain(events)) {
        const next = nextHeads?.get(chain)
        if (next && inserted.get(chain) === list.length) keepHead(chain, next)
        else {
          heads.delete(chain)
          again.push(...list)
        }
      }
      if (again.length === 0) return events.map(() => undefined)
      const failed = await appendAlone(again)
      const byEvent = new Map(again.map((event, index) => [event, failed[index]]))
      return events.map((event) => byEvent.get(event))
    },
    async alone(events) {
      planned.delete(events)
      return appendAlone(events)
    },
  })

  const publicKey = importJWK(signer.publicJwk, 'EdDSA')

  /** Why a row does not verify given the row before it (undefined: it verifies). */
  async function brokenAt(row: StoredRow, previous: StoredRow | undefined): Promise<BrokenLink | undefined> {
    const at = (field: string, problem: string): BrokenLink => ({
      chain: row.chain,
      row_id: row.id.toString(),
      seq: row.seq.toString(),
      field,
      problem,
    })
    if (previous && row.seq !== previous.seq + 1n) {
      return at('seq', `seq ${row.seq} does not follow ${previous.seq} (a row was removed or inserted)`)
    }
    if (previous && row.prevHash !== previous.hash) {
      return at('prev_hash', 'prev_hash is not the hash of the row before it')
    }
    if (row.kind === 'checkpoint') {
      const detail = (row.detail ?? {}) as Record<string, unknown>
      if (previous) return at('kind', 'a checkpoint can only open a chain')
      if (detail.through_hash !== row.hash) return at('hash', 'the checkpoint hash is not the one it signed')
      try {
        const parts = String(detail.signature ?? '').split('.')
        const bytes = checkpointBytes(chainedOf(row), row.hash, detail)
        await compactVerify(`${parts[0]}.${bytes.toString('base64url')}.${parts[2]}`, await publicKey, {
          algorithms: ['EdDSA'],
        })
      } catch {
        return at('signature', 'the checkpoint signature does not verify')
      }
      return undefined
    }
    if (!previous && row.prevHash !== GENESIS_HASH) {
      return at(
        'prev_hash',
        'the first row of the chain does not start from the genesis hash or a checkpoint',
      )
    }
    const fields = chainedOf(row)
    if (row.subject !== null && row.subjectSha256 !== subjectSha256(row.subject)) {
      return at('subject', 'the subject is not the one whose SHA-256 was chained')
    }
    const sealed = sealAuditRow(fields)
    if (sealed.hash === row.hash) return undefined
    const stored = parseDigests(row.fieldDigests)
    const now = sealed.digests
    const changed = CHAINED_FIELDS.find((field) => stored[field] !== now[field])
    if (changed) return at(changed, `${changed} was changed after the row was written`)
    return at('hash', 'the row hash does not match its content')
  }

  async function verifyChain(chain: string, result: ChainVerification): Promise<void> {
    let previous: StoredRow | undefined
    let afterSeq = -1n
    for (;;) {
      const page = await db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.chain, chain), gt(auditEvents.seq, afterSeq)))
        .orderBy(asc(auditEvents.seq))
        .limit(1000)
      for (const row of page) {
        result.rows++
        if (row.kind === 'checkpoint') result.checkpoints++
        const broken = await brokenAt(row, previous)
        if (broken) {
          result.first_broken ??= broken
          result.broken_chains.push(broken)
          result.ok = false
          return
        }
        previous = row
      }
      if (page.length < 1000) return
      afterSeq = page.at(-1)!.seq
    }
  }

  const underWay = new Set<Promise<unknown>>()
  return {
    async append(event) {
      const appending = appendGrouped(event)
      underWay.add(appending)
      const failure = await appending.finally(() => underWay.delete(appending))
      if (failure) throw failure
    },

    async drain() {
      while (underWay.size > 0) await Promise.allSettled([...underWay])
    },

    async trail(filter) {
      const conditions = [
        filter.chain === undefined ? undefined : eq(auditEvents.chain, filter.chain),
        filter.keyId === undefined ? undefined : eq(auditEvents.keyId, filter.keyId),
        filter.from === undefined ? undefined : gte(auditEvents.at, filter.from),
        filter.to === undefined ? undefined : lt(auditEvents.at, filter.to),
        filter.action === undefined ? undefined : eq(auditEvents.action, filter.action),
        filter.subject === undefined
          ? undefined
          : eq(auditEvents.subjectSha256, subjectSha256(filter.subject)),
        filter.after === undefined ? undefined : gt(auditEvents.id, filter.after),
      ].filter((condition) => condition !== undefined)
      const rows = await db
        .select()
        .from(auditEvents)
        .where(conditions.length ? and(...conditions) : undefined)
        .orderBy(asc(auditEvents.id))
        .limit(filter.limit + 1)
      const page = rows.slice(0, filter.limit)
      return {
        rows: page.map(auditRowView),
        ...(rows.length > filter.limit ? { next: page.at(-1)!.id.toString() } : {}),
      }
    },

    async verify(chain) {
      const result: ChainVerification = { ok: true, chains: 0, rows: 0, checkpoints: 0, broken_chains: [] }
      const chains =
        chain === undefined
          ? (
              await db
                .selectDistinct({ chain: auditEvents.chain })
                .from(auditEvents)
                .orderBy(asc(auditEvents.chain))
            ).map((row) => row.chain)
          : [chain]
      for (const name of chains) {
        result.chains++
        await verifyChain(name, result)
      }
      return result
    },

    async receipt(receiptId) {
      const [row] = await db
        .select({ chain: auditEvents.chain, keyId: auditEvents.keyId, receipt: auditEvents.receipt })
        .from(auditEvents)
        .where(eq(auditEvents.receiptId, receiptId))
        .limit(1)
      if (!row) return undefined
      return { ...row, receipt: row.receipt === null ? null : (JSON.parse(row.receipt) as unknown) }
    },

    async dropExpired(cutoff) {
      const expired = await db
        .selectDistinct({ chain: auditEvents.chain })
        .from(auditEvents)
        .where(and(lt(auditEvents.at, cutoff), ne(auditEvents.kind, 'checkpoint')))
      let dropped = 0
      for (const { chain } of expired) {
        dropped += await db.transaction(async (tx) => {
          await lockChain(tx, chain)
          const [last] = await tx
            .select()
            .from(auditEvents)
            .where(
              and(
                eq(auditEvents.chain, chain),
                lt(auditEvents.at, cutoff),
                ne(auditEvents.kind, 'checkpoint'),
              ),
            )
            .orderBy(sql`${auditEvents.seq} desc`)
            .limit(1)
          if (!last) return 0
          const [first] = await tx
            .select()
            .from(auditEvents)
            .where(eq(auditEvents.chain, chain))
            .orderBy(asc(auditEvents.seq))
            .limit(1)
          const removed = await tx
            .delete(auditEvents)
            .where(and(eq(auditEvents.chain, chain), lte(auditEvents.seq, last.seq)))
            .returning({ id: auditEvents.id })
          const earlier =
            first?.kind === 'checkpoint' ? ((first.detail ?? {}) as Record<string, unknown>) : undefined
          const detail: Record<string, unknown> = {
            dropped_from_seq: earlier?.dropped_from_seq ?? first?.seq.toString() ?? last.seq.toString(),
            dropped_through_seq: last.seq.toString(),
            dropped_rows: String(
              BigInt(String(earlier?.dropped_rows ?? '0')) + BigInt(removed.length - (earlier ? 1 : 0)),
            ),
            through_at: last.at.toISOString(),
            retention_cutoff: cutoff.toISOString(),
            through_hash: last.hash,
          }
          const fields = { chain, seq: last.seq, prev_hash: first?.prevHash ?? GENESIS_HASH }
          detail.signature = signer.signSync(checkpointBytes(fields, last.hash, detail))
          const chained: ChainedFields = {
            ...fields,
            key_id: last.keyId,
            at: options.clock.now(),
            kind: 'checkpoint',
            action: 'retention.drop',
            outcome: 'ok',
            subject_sha256: null,
            paid_with: null,
            amount_micros: null,
            receipt_id: null,
            receipt: null,
            detail,
          }
          // The checkpoint takes the place (id and seq) of the last dropped row, so the trail's
          // order by id stays the chain's order.
          await tx.insert(auditEvents).values({
            id: last.id,
            chain,
            seq: last.seq,
            keyId: last.keyId,
            at: chained.at,
            kind: 'checkpoint',
            action: 'retention.drop',
            outcome: 'ok',
            detail,
            fieldDigests: JSON.stringify(sealAuditRow(chained).digests),
            prevHash: fields.prev_hash,
            hash: last.hash,
          })
          return removed.length - (earlier ? 1 : 0)
        })
      }
      return dropped
    },
  }
}

/**
 * Erases the plaintext subject from a key's audit rows (all of them, or those of one subject),
 * for an erasure request: the chain holds only the subject's SHA-256, so it still verifies, and a
 * filter by that exact subject still finds the rows. A row is one of the subject's when its
 * subject contains that text (letter case ignored, as every other place erasure looks:
 * core/retention/subject-data.ts) or is the same name in another word order ("TANTOUSH, Ibrahim"
 * for "Ibrahim Tantoush", as the screen matches it). Returns the number of rows changed.
 */
export async function redactAuditSubjects(
  db: Db | DbTransaction,
  keyId: string,
  subject?: string,
): Promise<number> {
  const chain = eq(auditEvents.chain, `key:${keyId}`)
  const named = sql`${auditEvents.subject} is not null`
  if (subject === undefined) {
    const rows = await db
      .update(auditEvents)
      .set({ subject: null })
      .where(and(chain, named))
      .returning({ id: auditEvents.id })
    return rows.length
  }
  // The word order is compared here, not in SQL: a purge is rare and reads one key's named rows.
  const wanted = tokenSortedKey(subject)
  const needle = subject.toLowerCase()
  const candidates = await db
    .select({ id: auditEvents.id, subject: auditEvents.subject })
    .from(auditEvents)
    .where(and(chain, named))
  const ids = candidates
    .filter((row) => {
      const text = row.subject ?? ''
      return text.toLowerCase().includes(needle) || (wanted !== '' && tokenSortedKey(text) === wanted)
    })
    .map((row) => row.id)
  if (ids.length === 0) return 0
  const rows = await db
    .update(auditEvents)
    .set({ subject: null })
    .where(and(chain, inArray(auditEvents.id, ids)))
    .returning({ id: auditEvents.id })
  return rows.length
}
