import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type AnswerReceipt, jcsSha256, verifyAnswerReceipt } from '../../core/evidence/answer-receipt.ts'
import { subjectSha256 } from '../../core/evidence/audit-chain.ts'
import { type AuditRow, redactAuditSubjects } from '../../core/evidence/audit-store.ts'
import { usd } from '../../core/money.ts'
import { PRICES } from '../../core/payments/pricing.ts'
import type { TrustedKeys } from '../../core/reports/evidence.ts'
import { MATCHER_VERSION } from '../../core/sanctions/matcher-version.ts'
import type { Service } from '../../server/compose.ts'
import { DATABASE_KINDS } from '../support/database.ts'
import { sanctionsDataPath, UN_FILES } from '../support/sanctions/shared-data.ts'
import { createTestService, TEST_ADMIN_KEY } from '../support/service.ts'

const ACCOUNT_PRICE = PRICES.sanctions_screen.account.fresh

interface TrailPage {
  rows: AuditRow[]
  next_cursor: string | null
}

describe.each(DATABASE_KINDS)('receipts and the audit trail (%s)', (kind) => {
  let service: Service
  let apiKey: string
  let keyId: string
  let jwks: TrustedKeys

  beforeAll(async () => {
    service = await createTestService(kind, {
      SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
      // Configured but unreadable: screens answer with partial coverage (charged), not a 503.
      SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/no-such-file.xml'),
      SANCTIONS_EU_SOURCE: sanctionsDataPath('eu/no-such-file.xml'),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
    })
    await service.runtime.deps.sanctionsLists?.idle()
    const created = await service.runtime.keys.create({
      email: 'audit@example.com',
      tier: 'pro',
      balance: usd('5'),
    })
    apiKey = created.apiKey
    keyId = created.record.id
    jwks = (await (await service.app.request('/.well-known/jwks.json')).json()) as TrustedKeys
  })
  afterAll(async () => {
    await service?.close()
  })

  const get = (path: string, key = apiKey, headers: Record<string, string> = {}) =>
    service.app.request(path, { headers: { 'x-api-key': key, ...headers } })

  async function screen(name: string) {
    const response = await service.app.request('/v1/sanctions/screen', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ name }),
    })
    expect(response.status).toBe(200)
    const header = response.headers.get('x-receipt')
    expect(header).toBeTruthy()
    const receipt = JSON.parse(Buffer.from(header!, 'base64url').toString('utf8')) as AnswerReceipt
    expect(response.headers.get('x-receipt-id')).toBe(receipt.receipt_id)
    return { receipt, body: (await response.json()) as unknown }
  }

  /** The caller's trail, every page. */
  async function trail(query = '', key = apiKey): Promise<AuditRow[]> {
    const rows: AuditRow[] = []
    let cursor: string | null = null
    do {
      const response = await get(`/v1/audit/trail?limit=2${query}${cursor ? `&cursor=${cursor}` : ''}`, key)
      expect(response.status).toBe(200)
      const page = (await response.json()) as TrailPage
      rows.push(...page.rows)
      cursor = page.next_cursor
    } while (cursor)
    return rows
  }

  it('signs a receipt for a paid REST screen that names the list versions, the matcher, the price and the hashes', async () => {
    const { receipt, body } = await screen('Acme Trading Rotterdam')
    expect(receipt).toMatchObject({
      operation: 'sanctions_screen',
      quality: 'fresh',
      request_hash: jcsSha256({ name: 'Acme Trading Rotterdam' }),
      response_hash: jcsSha256(body),
      payment: { method: 'account', amount_micros: ACCOUNT_PRICE.toString(), key_id: keyId },
      matcher_version: MATCHER_VERSION,
      signature_algorithm: 'EdDSA (Ed25519)',
      key_id: jwks.keys[0]!.kid,
    })
    const un = service.runtime.deps.sanctionsLists!.loadedLists().find((list) => list.list_key === 'un')!
    expect(receipt.lists).toEqual([
      {
        list: un.list,
        list_key: 'un',
        version_id: un.version_id,
        publication_date: '2026-02-27',
        sha256: un.sha256,
      },
    ])
    expect(un.sha256).toMatch(/^[0-9a-f]{64}$/)
    const checked = await verifyAnswerReceipt(receipt as unknown as Record<string, unknown>, jwks, { body })
    expect(checked).toMatchObject({ ok: true, signature_valid: true, response_matches: true, problems: [] })
  })

  it('fails verification when one receipt field is altered, or the answer differs', async () => {
    const { receipt, body } = await screen('Another Company BV')
    const altered = { ...receipt, payment: { ...receipt.payment, amount_micros: '1' } }
    const outcome = await verifyAnswerReceipt(altered as unknown as Record<string, unknown>, jwks)
    expect(outcome.ok).toBe(false)
    expect(outcome.signature_valid).toBe(false)
    const otherList = { ...receipt, lists: [{ ...receipt.lists![0]!, sha256: '0'.repeat(64) }] }
    expect((await verifyAnswerReceipt(otherList as unknown as Record<string, unknown>, jwks)).ok).toBe(false)
    const answer = { ...(body as object), possible_match: true }
    const mismatch = await verifyAnswerReceipt(receipt as unknown as Record<string, unknown>, jwks, {
      body: answer,
    })
    expect(mismatch).toMatchObject({ ok: false, signature_valid: true, response_matches: false })
  })

  it('stores the receipt once delivered: GET /v1/receipts/{id} returns it to its key only', async () => {
    const { receipt } = await screen('Stored Receipt Holding')
    await vi.waitFor(async () => expect((await get(`/v1/receipts/${receipt.receipt_id}`)).status).toBe(200))
    expect(await (await get(`/v1/receipts/${receipt.receipt_id}`)).json()).toEqual(receipt)
    const other = await service.runtime.keys.create({
      email: 'other@example.com',
      tier: 'pro',
      balance: usd('1'),
    })
    expect((await get(`/v1/receipts/${receipt.receipt_id}`, other.apiKey)).status).toBe(404)
    expect((await get(`/v1/receipts/${receipt.receipt_id}`, TEST_ADMIN_KEY)).status).toBe(200)
    expect((await get('/v1/receipts/rcpt_nope')).status).toBe(422)
  })

  it('puts the receipt of a paid MCP tool call in _meta.receipt', async () => {
    const result = await service.mcp.call(
      { name: 'sanctions_screen', arguments: { name: 'Mcp Receipt Ltd' } },
      apiKey,
    )
    expect(result.isError).toBeFalsy()
    const receipt = (result._meta as { receipt: AnswerReceipt }).receipt
    expect(receipt.operation).toBe('sanctions_screen')
    expect(receipt.response_hash).toBe(jcsSha256(result.structuredContent))
    expect((await verifyAnswerReceipt(receipt as unknown as Record<string, unknown>, jwks)).ok).toBe(true)
  })

  it('keeps every paid call and every change in the key’s chain, filtered by operation and subject', async () => {
    await service.app.request(`/v1/admin/keys/${keyId}/credit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_ADMIN_KEY },
      body: JSON.stringify({ amount_usd: '1.00' }),
    })
    const watch = await service.app.request('/v1/watchlist', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ type: 'name', value: 'Watched Person' }),
    })
    expect(watch.status).toBeLessThan(300)
    await vi.waitFor(async () => {
      const rows = await trail()
      expect(rows.map((row) => row.action)).toEqual(
        expect.arrayContaining(['key.create', 'sanctions_screen', 'key.credit', 'watchlist_add']),
      )
    })
    const rows = await trail()
    expect(rows.map((row) => row.seq)).toEqual(rows.map((_, index) => String(index + 1)))
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toBe(rows[i - 1]!.hash)
    const screens = await trail('&operation=sanctions_screen')
    expect(screens.length).toBeGreaterThanOrEqual(4)
    expect(screens.every((row) => row.amount_micros === ACCOUNT_PRICE.toString())).toBe(true)
    const bySubject = await trail(`&subject=${encodeURIComponent('  acme TRADING rotterdam ')}`)
    expect(bySubject).toHaveLength(1)
    expect(bySubject[0]).toMatchObject({
      subject: 'Acme Trading Rotterdam',
      subject_sha256: subjectSha256('Acme Trading Rotterdam'),
    })
    const watched = rows.find((row) => row.action === 'watchlist_add')!
    expect(watched).toMatchObject({ kind: 'change', subject: 'Watched Person' })
    // Another key sees none of it; the operator sees it in the platform-wide view.
    const other = await service.runtime.keys.create({ email: 'x@example.com', tier: 'pro' })
    expect((await trail('', other.apiKey)).every((row) => row.key_id === other.record.id)).toBe(true)
    const platform = await trail(`&key_id=${keyId}`, TEST_ADMIN_KEY)
    expect(platform.map((row) => row.id)).toEqual(rows.map((row) => row.id))
    expect((await get(`/v1/audit/trail?key_id=${keyId}`, other.apiKey)).status).toBe(403)
  })

  it('exports any range as CSV and JSON Lines', async () => {
    const rows = await trail()
    const csv = await get('/v1/audit/trail', apiKey, { accept: 'text/csv' })
    expect(csv.headers.get('content-type')).toContain('text/csv')
    const lines = (await csv.text()).trim().split('\n')
    expect(lines[0]).toBe(
      'id,chain,seq,key_id,at,kind,action,outcome,subject,subject_sha256,paid_with,amount_micros,receipt_id,detail,prev_hash,hash',
    )
    expect(lines).toHaveLength(rows.length + 1)
    const ndjson = await get('/v1/audit/trail?operation=sanctions_screen', apiKey, {
      accept: 'application/x-ndjson',
    })
    const parsed = (await ndjson.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditRow)
    expect(parsed.map((row) => row.id)).toEqual(
      rows.filter((row) => row.action === 'sanctions_screen').map((row) => row.id),
    )
  })

  it('verifies, survives the erasure of a subject, and names the row altered in the database', async () => {
    const verify = async (key = apiKey) =>
      (await (await get('/v1/audit/verify', key)).json()) as Record<string, unknown>
    expect(await verify()).toMatchObject({ ok: true })
    expect(await redactAuditSubjects(service.database.db, keyId, 'ACME trading rotterdam')).toBe(1)
    expect(await verify()).toMatchObject({ ok: true })
    const bySubject = await trail(`&subject=${encodeURIComponent('Acme Trading Rotterdam')}`)
    expect(bySubject).toMatchObject([{ subject: null }])
    const rows = await trail('&operation=sanctions_screen')
    const target = rows[1]!
    await service.database.db.execute(
      sql`update audit_events set amount_micros = 1 where id = ${BigInt(target.id)}`,
    )
    expect(await verify()).toMatchObject({
      ok: false,
      first_broken: { row_id: target.id, field: 'amount_micros', chain: `key:${keyId}` },
    })
    expect(await verify(TEST_ADMIN_KEY)).toMatchObject({ ok: false, first_broken: { row_id: target.id } })
    await service.database.db.execute(
      sql`update audit_events set amount_micros = ${ACCOUNT_PRICE}, subject = 'Someone Else' where id = ${BigInt(target.id)}`,
    )
    expect(await verify()).toMatchObject({ ok: false, first_broken: { row_id: target.id, field: 'subject' } })
    await service.database.db.execute(
      sql`update audit_events set subject = null where id = ${BigInt(target.id)}`,
    )
    expect(await verify()).toMatchObject({ ok: true })
    await service.database.db.execute(sql`delete from audit_events where id = ${BigInt(rows[2]!.id)}`)
    expect(await verify()).toMatchObject({ ok: false, first_broken: { field: 'seq' } })
  })
})
