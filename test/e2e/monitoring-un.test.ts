import { copyFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifySignature } from '../../core/webhooks/signing.ts'
import { DATABASE_KINDS } from '../support/database.ts'
import { type MonitoringHarness, startMonitoringHarness } from '../support/monitoring/monitoring-harness.ts'
import { sanctionsDataPath, UN_FILES } from '../support/sanctions/shared-data.ts'
import { TEST_ADMIN_KEY } from '../support/service.ts'

/**
 * Sanctions monitoring end to end on the real UN lists (2025-11-18 -> 2026-02-27: SDi.007-SDi.010 added,
 * "MUNIR AL QUBAYSI" removed): a key checks one added name and watches the removed one, the
 * service refreshes, the right alerts appear for that key only, and an HTTPS receiver on
 * 127.0.0.1 gets signed deliveries that verify with the secret.
 */
describe.each(DATABASE_KINDS)('sanctions monitoring on the real UN lists (%s)', (kind) => {
  let h: MonitoringHarness
  let listFile: string
  let keyA: string
  let keyB: string
  let keyStarter: string
  let webhookId: string
  let secret: string

  beforeAll(async () => {
    listFile = path.join(mkdtempSync(path.join(tmpdir(), 'un-monitor-')), 'un.xml')
    copyFileSync(sanctionsDataPath(UN_FILES['2025-11-18']), listFile)
    h = await startMonitoringHarness(kind, {
      SANCTIONS_UN_SOURCE: listFile,
      // Configured but unreadable: their reads fail (an upstream failure), so screens are partial.
      SANCTIONS_OFAC_SOURCE: path.join(path.dirname(listFile), 'no-such-sdn.xml'),
      SANCTIONS_EU_SOURCE: path.join(path.dirname(listFile), 'no-such-eu.xml'),
    })
    const first = await h.refresh()
    expect(first.lists.find((list: { list_key: string }) => list.list_key === 'un')).toMatchObject({
      status: 'updated',
    })
    expect(first.alerts_created).toBe(0)
    ;[keyA, keyB, keyStarter] = await Promise.all([
      h.createKey('pro'),
      h.createKey('pro'),
      h.createKey('starter'),
    ])
  }, 60_000)
  afterAll(async () => {
    await h?.close()
  })

  it('refuses watchlist calls without a key-bound tenant (403), a missing field (400) and invalid entries (422), naming the field', async () => {
    for (const key of [undefined, TEST_ADMIN_KEY]) {
      const refused = await h.call('GET', '/v1/watchlist', key)
      expect(refused.status).toBe(403)
      expect(refused.body.detail).toBe('Tenant context required')
    }
    const noCountry = await h.call('POST', '/v1/watchlist', keyA, { type: 'registration', value: '12345678' })
    expect(noCountry.status).toBe(400)
    expect(noCountry.body.detail).toContainEqual(expect.objectContaining({ field: 'country' }))
    const badKvk = await h.call('POST', '/v1/watchlist', keyA, {
      type: 'registration',
      value: '1234',
      country: 'NL',
    })
    expect(badKvk.body.detail).toContainEqual(expect.objectContaining({ field: 'value' }))
    const badWallet = await h.call('POST', '/v1/watchlist', keyA, {
      type: 'wallet',
      value: '0x123',
      chain: 'eth',
    })
    expect(badWallet.status).toBe(422)
    const shortName = await h.call('POST', '/v1/watchlist', keyA, { type: 'name', value: 'x' })
    expect(shortName.status).toBe(422)
  })

  it('screens a new watchlist entry at once and keeps it to its key', async () => {
    const listed = await h.call('POST', '/v1/watchlist', keyA, {
      type: 'name',
      value: 'Munir al Qubaysi',
      label: 'supplier',
    })
    expect(listed.status).toBe(201)
    // A match on the UN list is a match; the screen is partial (OFAC SDN and EU could not be read).
    expect(listed.body.screening).toMatchObject({
      status: 'partial',
      matches_today: true,
      coverage: {
        status: 'partial',
        lists_not_checked: [
          { list_key: 'ofac_sdn', reason: 'load_failed' },
          { list_key: 'eu', reason: 'load_failed' },
        ],
      },
    })
    expect(listed.body.screening.matches[0]).toMatchObject({
      list_key: 'un',
      matched_name: 'MUNIR AL QUBAYSI',
    })
    const clean = await h.call('POST', '/v1/watchlist', keyA, {
      type: 'wallet',
      value: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045',
      chain: 'base',
    })
    // Only OFAC SDN lists addresses: without it, the wallet is not known to be clean.
    expect(clean.body.screening).toMatchObject({
      status: 'unavailable',
      matches_today: null,
      coverage: { status: 'none', lists_promised: ['ofac_sdn'] },
    })
    const mine = await h.call('GET', '/v1/watchlist?limit=10', keyA)
    expect(mine.body).toMatchObject({ total: 2, limit: 10, offset: 0 })
    expect((await h.call('GET', '/v1/watchlist', keyB)).body.total).toBe(0)
    const id = listed.body.watchlist_id
    expect((await h.call('GET', `/v1/watchlist/${id}`, keyB)).status).toBe(404)
    expect((await h.call('DELETE', `/v1/watchlist/${id}`, keyB)).status).toBe(404)
    expect((await h.call('GET', `/v1/watchlist/${id}`, keyA)).body.screening.matches_today).toBe(true)
    expect((await h.call('DELETE', `/v1/watchlist/${clean.body.watchlist_id}`, keyA)).status).toBe(204)
    await h.call('POST', '/v1/watchlist', keyB, { type: 'name', value: 'Someone Entirely Unlisted' })
  })

  it('registers a webhook (secret once), validates url and events, and keeps it to its key', async () => {
    const wildcard = await h.call('POST', '/v1/webhooks', keyA, { url: h.receiver.url, events: ['*'] })
    expect(wildcard.status).toBe(422)
    const plain = await h.call('POST', '/v1/webhooks', keyA, {
      url: 'http://hooks.example.test/x',
      events: ['sanctions.match.new'],
    })
    expect(plain).toMatchObject({ status: 422, body: { detail: 'URL must use HTTPS' } })
    const privateUrl = await h.call('POST', '/v1/webhooks', keyA, {
      url: 'https://10.0.0.1/x',
      events: ['sanctions.match.new'],
    })
    expect(privateUrl.status).toBe(422)
    expect(typeof privateUrl.body.detail).toBe('string')
    const created = await h.call('POST', '/v1/webhooks', keyA, {
      url: h.receiver.url,
      events: ['sanctions.match.new', 'trust.score.changed'],
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ status: 'active', delivered_events: ['sanctions.match.new'] })
    webhookId = created.body.webhook_id
    secret = created.body.secret
    const listed = await h.call('GET', '/v1/webhooks', keyA)
    expect(Array.isArray(listed.body)).toBe(true)
    expect(listed.body).toHaveLength(1)
    expect(JSON.stringify(listed.body)).not.toContain(secret)
    expect((await h.call('GET', '/v1/webhooks', keyB)).body).toEqual([])
    expect((await h.call('DELETE', `/v1/webhooks/${webhookId}`, keyB)).status).toBe(404)
    expect((await h.call('POST', `/v1/webhooks/${webhookId}/test`, keyB)).status).toBe(404)
  })

  it('sends one signed test delivery on request', async () => {
    const tested = await h.call('POST', `/v1/webhooks/${webhookId}/test`, keyA)
    expect(tested.body).toMatchObject({ delivered: true, status_code: 200, error: null })
    const received = h.receiver.received.find((delivery) => delivery.eventId === tested.body.event_id)
    expect(received?.event).toBe('webhook.test')
    expect(verifySignature(secret, received!.body, received!.signature)).toBe(true)
  })

  it('turns the refresh to 2026-02-27 into list alerts and alerts for what this key checked or watches', async () => {
    const checked = await h.call('POST', '/v1/entity/check', keyA, {
      entity_name: 'Abdul Rahim Hamdan Dagalo',
      country: 'SD',
    })
    expect(checked.status).toBe(200)
    copyFileSync(sanctionsDataPath(UN_FILES['2026-02-27']), listFile)
    const refreshed = await h.refresh()
    expect(refreshed.lists.find((list: { list_key: string }) => list.list_key === 'un')).toMatchObject({
      status: 'updated',
      diff: { added: 4, removed: 1, changed: 0 },
    })
    expect(refreshed.alerts_created).toBe(7)

    const alertsA = await h.call('GET', '/v1/compliance/alerts', keyA)
    expect(alertsA.status).toBe(200)
    expect(alertsA.body).toMatchObject({ total: 7, offset: 0, limit: 50 })
    // The alerts say which lists are monitored: changes of a list not held raise none.
    expect(alertsA.body.coverage).toMatchObject({
      status: 'partial',
      lists_checked: [{ list_key: 'un', publication_date: '2026-02-27' }],
      lists_not_checked: [{ list_key: 'ofac_sdn' }, { list_key: 'eu' }],
    })
    const keyAlerts = alertsA.body.alerts.filter((alert: { scope: string }) => alert.scope === 'key')
    expect(keyAlerts).toHaveLength(2)
    const added = keyAlerts.find((alert: { event_type: string }) => alert.event_type === 'entry_added')
    expect(added).toMatchObject({
      severity: 'critical',
      jurisdiction: 'un',
      list_date: '2026-02-27',
      previous_list_date: '2025-11-18',
      entry: { name: 'ABDUL RAHIM HAMDAN DAGALO' },
      match: { basis: 'checked', kind: 'name_exact', score: 1 },
    })
    expect(added.match.check_id).toBeTruthy()
    const removed = keyAlerts.find((alert: { event_type: string }) => alert.event_type === 'entry_removed')
    expect(removed).toMatchObject({
      severity: 'low',
      entry: { name: 'MUNIR AL QUBAYSI' },
      match: { basis: 'watchlist', kind: 'name_exact', subject: { type: 'name', value: 'Munir al Qubaysi' } },
    })

    const alertsB = await h.call('GET', '/v1/compliance/alerts?limit=200', keyB)
    expect(alertsB.body.total).toBe(5)
    expect(
      alertsB.body.alerts.every(
        (alert: { scope: string; match: unknown }) => alert.scope === 'list' && alert.match === null,
      ),
    ).toBe(true)
    expect((await h.call('GET', '/v1/compliance/alerts?jurisdiction=us', keyA)).body.total).toBe(0)
    expect((await h.call('GET', '/v1/compliance/alerts?severity=critical', keyA)).body.total).toBe(1)
    expect((await h.call('GET', '/v1/compliance/alerts?limit=2&offset=1', keyA)).body.alerts).toHaveLength(2)
    expect((await h.call('GET', '/v1/compliance/alerts?limit=0', keyA)).status).toBe(422)
    expect((await h.call('GET', '/v1/compliance/alerts?severity=severe', keyA)).status).toBe(422)
    expect((await h.call('GET', '/v1/compliance/alerts', keyStarter)).status).toBe(403)

    // The receiver gets both key alerts as signed sanctions.match.new events carrying the same alert.
    await h.receiver.waitFor(3)
    const events = h.receiver.received.filter((delivery) => delivery.event === 'sanctions.match.new')
    expect(events).toHaveLength(2)
    for (const delivery of events) {
      expect(verifySignature(secret, delivery.body, delivery.signature)).toBe(true)
      const envelope = JSON.parse(delivery.body)
      expect(Object.keys(envelope)).toEqual(['created_at', 'data', 'event', 'event_id'])
      expect(envelope.data).toEqual(
        keyAlerts.find((alert: { alert_id: string }) => alert.alert_id === envelope.event_id),
      )
    }
    const deliveries = await h.call('GET', `/v1/webhooks/${webhookId}/deliveries`, keyA)
    expect(deliveries.body.total).toBe(2)
    for (const delivery of deliveries.body.deliveries) {
      expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200 })
      expect(delivery.attempt_log[0]).toMatchObject({ attempt: 1, status_code: 200, error: null })
    }
    expect((await h.call('GET', `/v1/webhooks/${webhookId}/deliveries`, keyB)).status).toBe(404)
  })

  it('shows the operator versions, dates, counts and which diff fired how many alerts', async () => {
    expect((await h.call('GET', '/v1/admin/sanctions/lists', keyA)).status).toBe(403)
    const report = await h.call('GET', '/v1/admin/sanctions/lists', TEST_ADMIN_KEY)
    const un = report.body.lists.find((list: { list_key: string }) => list.list_key === 'un')
    expect(un).toMatchObject({
      configured: true,
      loaded_version: { publication_date: '2026-02-27', entry_count: 1003 },
      last_error: null,
    })
    expect(un.versions.map((version: { publication_date: string }) => version.publication_date)).toEqual([
      '2026-02-27',
      '2025-11-18',
    ])
    expect(un.diffs).toEqual([
      expect.objectContaining({ added: 4, removed: 1, changed: 0, alerts_processed: true, alert_count: 7 }),
    ])
    // Processing again creates nothing new.
    expect((await h.refresh()).alerts_created).toBe(0)
  })

  it('deletes a webhook (204) with its history', async () => {
    expect((await h.call('DELETE', `/v1/webhooks/${webhookId}`, keyA)).status).toBe(204)
    expect((await h.call('GET', '/v1/webhooks', keyA)).body).toEqual([])
    expect((await h.call('GET', `/v1/webhooks/${webhookId}/deliveries`, keyA)).status).toBe(404)
  })
})
