import { copyFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifySignature } from '../../core/webhooks/signing.ts'
import {
  type Json,
  type MonitoringHarness,
  startMonitoringHarness,
} from '../support/monitoring/monitoring-harness.ts'
import {
  BIG_LIST_HOOK_TIMEOUT_MS,
  decompressedSharedFile,
  OFAC_ADVANCED,
} from '../support/sanctions/shared-data.ts'

/**
 * Sanctions monitoring on the real OFAC SDN Advanced files (2025-10-30 -> 2025-11-19: 115 parties
 * added, 4 removed, 3 changed). Key A checks a wallet and watches a wallet and names that the
 * newer file adds, changes or removes; key B watches an unchanged entry. The service reads the
 * plain XML, as OFAC serves it (the copies are stored bzip2-compressed; list-source.test.ts covers
 * reading .bz2). On PGlite only: the PostgreSQL path is the same code, covered by the UN suite.
 */
describe('sanctions monitoring on the real OFAC SDN files (pglite)', () => {
  let h: MonitoringHarness
  let listFile: string
  let keyA: string
  let keyB: string
  let secret: string

  beforeAll(async () => {
    listFile = path.join(mkdtempSync(path.join(tmpdir(), 'ofac-monitor-')), 'sdn_advanced.xml')
    copyFileSync(await decompressedSharedFile(OFAC_ADVANCED['2025-10-30']), listFile)
    h = await startMonitoringHarness('pglite', {
      SANCTIONS_OFAC_SOURCE: listFile,
      // The real OFAC files are from 2025: a threshold that covers their age keeps the wallet
      // screen complete (a stale list is never "not listed", docs/sanctions.md).
      SANCTIONS_MAX_AGE_DAYS_OFAC: 3650,
      // Configured but unreadable: their reads fail (an upstream failure), so checks are partial.
      SANCTIONS_EU_SOURCE: path.join(path.dirname(listFile), 'no-such-eu.xml'),
      SANCTIONS_UN_SOURCE: path.join(path.dirname(listFile), 'no-such-un.xml'),
    })
    const first = await h.refresh()
    expect(first.lists.find((list: Json) => list.list_key === 'ofac_sdn')).toMatchObject({
      status: 'updated',
      publication_date: '2025-10-30',
    })
    ;[keyA, keyB] = await Promise.all([h.createKey('pro'), h.createKey('enterprise')])
  }, BIG_LIST_HOOK_TIMEOUT_MS)
  afterAll(async () => {
    await h?.close()
  })

  it(
    'alerts key A (and only key A) about the wallets and names the 2025-11-19 file adds, changes or removes',
    async () => {
      const created = await h.call('POST', '/v1/webhooks', keyA, {
        url: h.receiver.url,
        events: ['sanctions.match.new'],
      })
      expect(created.status).toBe(201)
      secret = created.body.secret
      const watch = async (key: string, body: object) => {
        const added = await h.call('POST', '/v1/watchlist', key, body)
        expect(added.status, JSON.stringify(added.body)).toBe(201)
        return added.body
      }
      // Volosovik (XBT address added with the party on 2025-11-19): not listed yet.
      const wallet = await watch(keyA, {
        type: 'wallet',
        value: '18dLDAWi8LmrHbEq3QzDJb9SLxCf4uimXB',
        chain: 'btc',
      })
      expect(wallet.screening.matches_today).toBe(false)
      // Removed on 2025-11-19, listed today.
      const removed = await watch(keyA, { type: 'name', value: 'Anas Hasan Khattab' })
      expect(removed.screening.matches_today).toBe(true)
      // Changed on 2025-11-19 (aliases and 53 USDT addresses added).
      await watch(keyA, { type: 'name', value: 'Cheil Credit Bank' })
      // Unchanged between the two files.
      await watch(keyB, { type: 'name', value: 'Lazarus Group' })
      // Key A checked Sokolovski's wallet (added on 2025-11-19) in an entity check.
      const checked = await h.call('POST', '/v1/entity/check', keyA, {
        entity_name: 'Rolan Sokolovski',
        country: 'CA',
        wallet_address: '37fKFZQGMqdBkjSUub1jCDWGgSHwv9VxfZ',
        wallet_chain: 'btc',
      })
      expect(checked.status).toBe(200)

      copyFileSync(await decompressedSharedFile(OFAC_ADVANCED['2025-11-19']), listFile)
      const refreshed = await h.refresh()
      expect(refreshed.lists.find((list: Json) => list.list_key === 'ofac_sdn')).toMatchObject({
        status: 'updated',
        publication_date: '2025-11-19',
        diff: { added: 115, removed: 4, changed: 3 },
      })
      expect(refreshed.alerts_created).toBe(122 + 4)

      const page = await h.call('GET', '/v1/compliance/alerts?limit=200', keyA)
      expect(page.body.total).toBe(126)
      const mine = page.body.alerts.filter((alert: Json) => alert.scope === 'key')
      const byEntry = Object.fromEntries(mine.map((alert: Json) => [alert.entry.entry_id, alert]))
      expect(Object.keys(byEntry).sort()).toEqual(['15591', '22985', '53994', '56360'])
      expect(byEntry['53994']).toMatchObject({
        event_type: 'entry_added',
        severity: 'critical',
        jurisdiction: 'us',
        match: { basis: 'watchlist', kind: 'crypto_address', score: 1 },
      })
      expect(byEntry['56360']).toMatchObject({
        event_type: 'entry_added',
        severity: 'critical',
        entry: { name: 'Sokolovski, Rolan' },
        match: { basis: 'checked', kind: 'crypto_address', subject: { type: 'wallet' } },
      })
      expect(byEntry['15591']).toMatchObject({
        event_type: 'entry_removed',
        severity: 'low',
        match: { basis: 'watchlist', subject: { value: 'Anas Hasan Khattab' } },
      })
      expect(byEntry['22985']).toMatchObject({
        event_type: 'entry_changed',
        severity: 'high',
        match: { basis: 'watchlist', kind: 'name_exact' },
      })
      expect(byEntry['22985'].changed_fields).toEqual(expect.arrayContaining(['aliases', 'crypto_addresses']))

      const other = await h.call('GET', '/v1/compliance/alerts?limit=200', keyB)
      expect(other.body.total).toBe(122)
      expect(other.body.alerts.filter((alert: Json) => alert.scope === 'key')).toEqual([])

      await h.receiver.waitFor(4)
      const events = h.receiver.received.filter((delivery) => delivery.event === 'sanctions.match.new')
      expect(new Set(events.map((delivery) => delivery.eventId))).toEqual(
        new Set(mine.map((alert: Json) => alert.alert_id)),
      )
      expect(events.every((delivery) => verifySignature(secret, delivery.body, delivery.signature))).toBe(
        true,
      )
    },
    BIG_LIST_HOOK_TIMEOUT_MS,
  )
})
