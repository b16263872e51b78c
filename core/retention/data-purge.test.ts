import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../test/support/database.ts'
import { type Database, rowsOf } from '../store/database.ts'
import {
  apiKeys,
  complianceAlerts,
  entityChecks,
  entityReports,
  idempotencyRecords,
  keyReservations,
  reportIdentifiers,
  sanctionsDismissals,
  settlements,
  usageEvents,
  usageRollups,
  watchlistEntries,
  webhookAttempts,
  webhookDeliveries,
  webhooks,
} from '../store/schema.ts'
import { RETENTION_CATEGORIES } from './categories.ts'
import { readDataInventory } from './data-inventory.ts'
import { createDataPurge, type PurgeEvent } from './data-purge.ts'

const SUBJECT = 'Ivan Subjectov'
const OTHER = 'Olga Otherova'
const NOW = new Date('2026-11-20T10:00:00Z')

/** Every row of every table of the schema (not the migrations' bookkeeping), as its JSON text. */
async function tablesOf(database: Database): Promise<string[]> {
  const rows = rowsOf<{ table_name: string }>(
    await database.db.execute(
      sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
    ),
  )
  return rows.map((row) => row.table_name)
}

/**
 * Per table, the rows that name `subject` (as written, letter case ignored, or without spaces as
 * report identifiers keep it) and mention `marker` (a key id, which every row of that key carries
 * in some column, its owner or its delivery id).
 */
async function naming(database: Database, subject: string, marker: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  const plain = subject.toLowerCase()
  const squeezed = plain.replaceAll(' ', '')
  for (const table of await tablesOf(database)) {
    const row = rowsOf<{ n: unknown }>(
      await database.db.execute(
        sql`select count(*) as n from ${sql.identifier(table)} t
            where (position(${plain} in lower(row_to_json(t)::text)) > 0 or position(${squeezed} in lower(row_to_json(t)::text)) > 0)
            and position(${marker} in row_to_json(t)::text) > 0`,
      ),
    )[0]
    const n = Number(row?.n ?? 0)
    if (n > 0) counts[table] = n
  }
  return counts
}

/** Key balances and ledger totals: what a purge must leave exactly as it was. */
async function money(database: Database) {
  const [keys] = rowsOf<{ total: unknown }>(
    await database.db.execute(sql`select coalesce(sum(balance_micros), 0)::text as total from api_keys`),
  )
  const [ledger] = rowsOf<{ total: unknown; n: unknown }>(
    await database.db.execute(
      sql`select coalesce(sum(amount_micros), 0)::text as total, count(*)::text as n from settlements`,
    ),
  )
  const [usage] = rowsOf<{ total: unknown; n: unknown }>(
    await database.db.execute(
      sql`select coalesce(sum(cost_micros), 0)::text as total, count(*)::text as n from usage_events`,
    ),
  )
  const [reserved] = rowsOf<{ total: unknown }>(
    await database.db.execute(
      sql`select coalesce(sum(amount_micros), 0)::text as total from key_reservations`,
    ),
  )
  return { keys: keys?.total, ledger, usage, reserved: reserved?.total }
}

/** One key's data about a subject (and about another subject) in every table that can hold it. */
async function seed(database: Database, keyId: string, subject: string, tag: string): Promise<void> {
  const { db } = database
  const id = (kind: string) => `${kind}_${keyId}_${tag}`
  await db.insert(entityChecks).values({
    id: id('chk'),
    owner: `key:${keyId}`,
    keyId,
    operation: 'entity_check',
    entityHash: id('eh'),
    inputHash: id('ih'),
    quality: 'standard',
    input: { entity_name: subject, country: 'NL' },
    result: { entity: { name: subject.toUpperCase() }, sanctions: { matches: [] } },
    createdAt: NOW,
  })
  await db.insert(entityReports).values({
    id: id('rep'),
    owner: `key:${keyId}`,
    keyId,
    checkId: id('chk'),
    entityHash: id('eh'),
    trustLevel: 'medium',
    report: { subject: { name: subject }, evidence: [] },
    createdAt: NOW,
  })
  await db.insert(reportIdentifiers).values({
    reportId: id('rep'),
    owner: `key:${keyId}`,
    kind: 'director',
    value: subject.toUpperCase().replaceAll(' ', ''),
  })
  await db
    .insert(watchlistEntries)
    .values({ id: id('wl'), keyId, kind: 'name', value: subject, label: null, createdAt: NOW })
  await db.insert(sanctionsDismissals).values({
    id: id('dis'),
    keyId,
    subjectType: 'name',
    subject,
    subjectKey: subject.toLowerCase().split(' ').sort().join(' '),
    listKey: 'un',
    entryId: `entry_${tag}`,
    entryName: 'LISTED PERSON',
    entryFingerprint: 'f'.repeat(64),
    reason: 'not our customer',
    dismissedBy: 'analyst@example.com',
    status: 'active',
    createdAt: NOW,
  })
  await db.insert(complianceAlerts).values({
    id: id('alr'),
    diffId: `diff_${tag}`,
    keyId,
    listKey: 'un',
    jurisdiction: 'un',
    eventType: 'entry_added',
    entryId: `entry_${tag}`,
    severity: 'high',
    alert: { match: { subject: { type: 'name', value: subject } } },
    createdAt: NOW,
  })
  await db.insert(webhooks).values({
    id: id('wh'),
    keyId,
    url: `https://hooks.example.com/${keyId}`,
    events: ['sanctions.match.new'],
    secret: new Uint8Array([1, 2, 3]),
    secretKeyId: 'k1',
    status: 'active',
    createdAt: NOW,
  })
  await db.insert(webhookDeliveries).values({
    id: id('dlv'),
    webhookId: id('wh'),
    keyId,
    event: 'sanctions.match.new',
    eventId: id('alr'),
    body: JSON.stringify({ data: { match: { subject: { value: subject } } } }),
    status: 'delivered',
    nextAttemptAt: NOW,
    createdAt: NOW,
  })
  await db.insert(webhookAttempts).values({
    id: id('att'),
    deliveryId: id('dlv'),
    webhookId: id('wh'),
    attempt: 1,
    statusCode: 200,
    durationMs: 12,
    instanceId: 'i1',
    at: NOW,
  })
  await db.insert(idempotencyRecords).values({
    keyId,
    idempotencyKey: id('idem'),
    operation: 'sanctions_screen',
    requestHash: id('rh'),
    state: 'done',
    claimId: id('claim'),
    responseStatus: 200,
    responseBody: JSON.stringify({ screened: subject, matches: [] }),
  })
  await db.insert(settlements).values({
    id: id('set'),
    paymentId: id('pay'),
    status: 'SETTLED',
    phase: 'settled',
    network: 'base',
    payer: '0x00000000000000000000000000000000000000a1',
    amountMicros: 10_000n,
    operation: 'sanctions_screen',
    keyId,
    instanceId: 'i1',
    payment: { scheme: 'exact' },
    requestHash: id('rh'),
    answerStatus: 200,
    answerBody: JSON.stringify({ screened: subject }),
  })
  await db.insert(usageEvents).values({
    keyId,
    operation: 'sanctions_screen',
    outcome: 'ok',
    paidWith: 'key',
    costMicros: 10_000n,
    latencyMs: 5,
  })
  await db.insert(keyReservations).values({
    id: id('res'),
    keyId,
    operation: 'sanctions_screen',
    amountMicros: 10_000n,
    instanceId: 'i1',
  })
}

describe.each(DATABASE_KINDS)('erasure on request (%s)', (kind) => {
  let database: Database
  const events: PurgeEvent[] = []

  beforeAll(async () => {
    database = await openTestDatabase(kind)
    for (const keyId of ['key_aaa', 'key_bbb']) {
      await database.db.insert(apiKeys).values({
        id: keyId,
        keyHash: `hash_${keyId}`,
        keyPrefix: 'vk_live_x',
        email: `${keyId}@example.com`,
        tier: 'pro',
        mode: 'live',
        balanceMicros: 5_000_000n,
      })
      await database.db.insert(usageRollups).values({
        keyId,
        hour: NOW,
        operation: 'sanctions_screen',
        outcome: 'ok',
        calls: 2n,
        costMicros: 20_000n,
        latencyMsSum: 10n,
      })
      await seed(database, keyId, SUBJECT, 's')
      await seed(database, keyId, OTHER, 'o')
    }
  })
  afterAll(async () => {
    await database?.close()
  })

  it('removes a subject from every table that held it for that key, in one transaction, leaving the other key and the money alone', async () => {
    const heldBefore = await naming(database, SUBJECT, 'key_aaa')
    // Every table that holds subject data of a key holds it here, so the purge is tested on all.
    expect(Object.keys(heldBefore).sort()).toEqual([
      'compliance_alerts',
      'entity_checks',
      'entity_reports',
      'idempotency_records',
      'report_identifiers',
      'sanctions_dismissals',
      'settlements',
      'watchlist_entries',
      'webhook_deliveries',
    ])
    const otherKeyBefore = await naming(database, SUBJECT, 'key_bbb')
    const otherSubjectBefore = await naming(database, OTHER, 'key_aaa')
    const moneyBefore = await money(database)

    const purge = createDataPurge({ db: database.db, onPurged: (event) => void events.push(event) })
    const result = await purge.purge({ keyId: 'key_aaa', subject: 'ivan SUBJECTOV' })
    expect(result.scope).toBe('subject')
    const removed = Object.fromEntries(result.removed.map((item) => [item.table, item.count]))
    expect(removed).toMatchObject({
      entity_checks: 1,
      entity_reports: 1,
      watchlist_entries: 1,
      sanctions_dismissals: 1,
      compliance_alerts: 1,
      webhook_deliveries: 1,
      idempotency_records: 1,
      webhooks: 0,
    })
    expect(result.total_removed).toBe(7)
    expect(result.kept.find((item) => item.table === 'settlements' && item.redacted === 1)?.reason).toMatch(
      /fiscal/,
    )
    expect(result.kept.map((item) => item.table)).toEqual(
      expect.arrayContaining(['api_keys', 'settlements', 'usage_events']),
    )

    expect(await naming(database, SUBJECT, 'key_aaa')).toEqual({})
    expect(await naming(database, SUBJECT, 'key_bbb')).toEqual(otherKeyBefore)
    expect(await naming(database, OTHER, 'key_aaa')).toEqual(otherSubjectBefore)
    expect(await money(database)).toEqual(moneyBefore)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ key_id: 'key_aaa', scope: 'subject' })

    // Idempotent: nothing is left to remove.
    const again = await purge.purge({ keyId: 'key_aaa', subject: SUBJECT })
    expect(again.total_removed).toBe(0)
    expect(again.kept.find((item) => item.table === 'settlements' && item.redacted > 0)).toBeUndefined()
  })

  it('purges everything of a key, which the data inventory then shows, and keeps the records the law requires', async () => {
    const otherKeyBefore = await naming(database, OTHER, 'key_bbb')
    const moneyBefore = await money(database)
    const purge = createDataPurge({ db: database.db })
    const result = await purge.purge({ keyId: 'key_aaa', subject: null })
    expect(result.scope).toBe('all')
    expect(Object.fromEntries(result.removed.map((item) => [item.table, item.count]))).toMatchObject({
      entity_checks: 1,
      webhooks: 2,
      webhook_deliveries: 1,
    })
    expect(await naming(database, OTHER, 'key_aaa')).toEqual({})
    expect(await naming(database, OTHER, 'key_bbb')).toEqual(otherKeyBefore)
    expect(await money(database)).toEqual(moneyBefore)
    // Only the kept records still name the key: its key row, settlements (answers redacted), usage and reservations.
    const left: string[] = []
    for (const table of await tablesOf(database)) {
      const [row] = rowsOf<{ n: unknown }>(
        await database.db.execute(
          sql`select count(*) as n from ${sql.identifier(table)} t where position('key_aaa' in row_to_json(t)::text) > 0`,
        ),
      )
      if (Number(row?.n ?? 0) > 0) left.push(table)
    }
    expect(left.sort()).toEqual([
      'api_keys',
      'key_reservations',
      'settlements',
      'usage_events',
      'usage_rollups',
    ])

    const inventory = await readDataInventory(
      {
        db: database.db,
        clock: { now: () => NOW },
        categories: RETENTION_CATEGORIES,
        retentionDays: () => 365,
        nextRunAt: () => NOW,
      },
      { kind: 'key', keyId: 'key_aaa', tier: 'pro', mode: 'live', role: 'customer' },
    )
    const counts = Object.fromEntries(inventory.map((item) => [item.category, item.record_count]))
    expect(counts).toMatchObject({ stored_checks: 0, watchlist: 0, sanctions_dismissals: 0 })
    expect((await purge.purge({ keyId: 'key_aaa', subject: null })).total_removed).toBe(0)
  })
})
