import { copyFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS } from '../support/database.ts'
import {
  type Json,
  type MonitoringHarness,
  startMonitoringHarness,
} from '../support/monitoring/monitoring-harness.ts'
import { sanctionsDataPath, UN_FILES } from '../support/sanctions/shared-data.ts'

/**
 * Dismissed false positives over real UN list versions. 2025-04-19 -> 2025-11-18 changes entry
 * 111639 "IBRAHIM ALI ABU BAKR TANTOUSH" (country AF added), removes 3020633 "ABU MOHAMMED
 * AL-JAWLANI" and leaves 6907993 "ERIC BADEGE" as it was; 2025-11-18 -> 2026-02-27 changes no
 * entry. A dismissal made on the first version stays dismissed across re-screens (exact and
 * fuzzy), a watchlist screen and the refreshes that do not touch its entry, and re-opens when its
 * entry changes; another key never sees or is affected by it.
 */
describe.each(DATABASE_KINDS)('sanctions dismissals on real UN list versions (%s)', (kind) => {
  let h: MonitoringHarness
  let listFile: string
  let keyA: string
  let keyB: string
  const dismissed: Record<string, string> = {}

  const screen = (key: string, name: string, match?: 'fuzzy') =>
    h.call('POST', '/v1/sanctions/screen', key, { name, ...(match ? { match } : {}) })
  const matchOf = (body: Json, entryId: string) =>
    body.matches.find((match: Json) => match.list_key === 'un' && match.entry_id === entryId)
  const refreshTo = async (date: keyof typeof UN_FILES) => {
    copyFileSync(sanctionsDataPath(UN_FILES[date]), listFile)
    const refreshed = await h.refresh()
    return refreshed.lists.find((list: Json) => list.list_key === 'un')
  }

  beforeAll(async () => {
    listFile = path.join(mkdtempSync(path.join(tmpdir(), 'un-dismiss-')), 'un.xml')
    copyFileSync(sanctionsDataPath(UN_FILES['2025-04-19']), listFile)
    h = await startMonitoringHarness(kind, {
      SANCTIONS_UN_SOURCE: listFile,
      SANCTIONS_OFAC_SOURCE: path.join(path.dirname(listFile), 'no-such-sdn.xml'),
      SANCTIONS_EU_SOURCE: path.join(path.dirname(listFile), 'no-such-eu.xml'),
    })
    expect((await h.refresh()).lists.find((list: Json) => list.list_key === 'un')).toMatchObject({
      status: 'updated',
    })
    ;[keyA, keyB] = await Promise.all([h.createKey('pro'), h.createKey('pro')])
  }, 60_000)
  afterAll(async () => {
    await h?.close()
  })

  it('refuses a dismissal without a tenant key, of an entry not listed, or with fields missing, naming the field', async () => {
    const body = {
      subject: 'Eric Badege',
      list: 'un',
      entry_id: '6907993',
      reason: 'r',
      dismissed_by: 'a@x.test',
    }
    expect((await h.call('POST', '/v1/sanctions/dismissals', undefined, body)).body.detail).toBe(
      'Tenant context required',
    )
    const unknown = await h.call('POST', '/v1/sanctions/dismissals', keyA, { ...body, entry_id: '999999999' })
    expect(unknown.status).toBe(422)
    expect(JSON.stringify(unknown.body)).toContain('entry_id')
    const missing = await h.call('POST', '/v1/sanctions/dismissals', keyA, { ...body, reason: undefined })
    expect(missing.status).toBe(400)
    expect(JSON.stringify(missing.body)).toContain('reason')
    const badList = await h.call('POST', '/v1/sanctions/dismissals', keyA, { ...body, list: 'interpol' })
    expect(badList.status).toBe(422)
  })

  it('dismisses matches of key A: its screens show them dismissed and not a hit; key B still sees the hit', async () => {
    const targets = [
      ['Ibrahim Ali Abu Bakr Tantoush', '111639'],
      ['Eric Badege', '6907993'],
      ['Abu Mohammed al-Jawlani', '3020633'],
    ] as const
    for (const [name, entryId] of targets) {
      const before = await screen(keyA, name)
      expect(before.status).toBe(200)
      expect(before.body.possible_match).toBe(true)
      expect(matchOf(before.body, entryId)).toBeDefined()
      const created = await h.call('POST', '/v1/sanctions/dismissals', keyA, {
        subject: name,
        list: 'un',
        entry_id: entryId,
        reason: 'date of birth and nationality differ from our customer',
        dismissed_by: 'analyst@a.example',
      })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({
        status: 'active',
        list_key: 'un',
        entry_id: entryId,
        subject: name,
      })
      expect(created.body.entry_fingerprint).toMatch(/^[0-9a-f]{64}$/)
      dismissed[entryId] = created.body.dismissal_id
      // A's watchlist and checks name the subject, so alerts for it are A's.
      expect((await h.call('POST', '/v1/watchlist', keyA, { type: 'name', value: name })).status).toBe(201)
      expect((await h.call('POST', '/v1/watchlist', keyB, { type: 'name', value: name })).status).toBe(201)
    }
    for (const [name, entryId] of targets) {
      // Another spelling of the same subject (letter case, word order) finds the dismissal.
      for (const mode of [undefined, 'fuzzy'] as const) {
        const again = await screen(keyA, name.toUpperCase().split(' ').reverse().join(' '), mode)
        expect(again.status).toBe(200)
        const match = matchOf(again.body, entryId)
        expect(match.dismissal).toMatchObject({
          status: 'dismissed',
          dismissal_id: dismissed[entryId],
          dismissed_by: 'analyst@a.example',
          reason: 'date of birth and nationality differ from our customer',
        })
        expect(match.match_score).toBeGreaterThan(0)
        expect(again.body.dismissed_matches).toBeGreaterThanOrEqual(1)
        if (again.body.matches.length === again.body.dismissed_matches) {
          expect(again.body.possible_match).toBe(false)
          // OFAC SDN and EU could not be read: no open match, but not clear either.
          expect(again.body.result).toBe('incomplete')
        }
      }
      const other = await screen(keyB, name)
      expect(other.body.possible_match).toBe(true)
      expect(matchOf(other.body, entryId).dismissal).toBeUndefined()
    }
    const watchedA = await h.call('GET', '/v1/watchlist?limit=10', keyA)
    for (const entry of watchedA.body.entries) {
      const screening = (await h.call('GET', `/v1/watchlist/${entry.watchlist_id}`, keyA)).body.screening
      expect(screening.matches.length).toBeGreaterThan(0)
      for (const match of screening.matches.filter((m: Json) => dismissed[m.entry_id])) {
        expect(match.dismissal.status).toBe('dismissed')
      }
    }
    const watchedB = await h.call('GET', '/v1/watchlist?limit=10', keyB)
    const screeningB = (await h.call('GET', `/v1/watchlist/${watchedB.body.entries[1].watchlist_id}`, keyB))
      .body.screening
    expect(screeningB.matches_today).toBe(true)
    expect(screeningB.matches[0].dismissal).toBeUndefined()
  })

  it('keeps dismissals to their key: B cannot list or delete them', async () => {
    const listB = await h.call('GET', '/v1/sanctions/dismissals', keyB)
    expect(listB.body).toEqual({ dismissals: [], next_cursor: null })
    expect((await h.call('DELETE', `/v1/sanctions/dismissals/${dismissed['6907993']}`, keyB)).status).toBe(
      404,
    )
    // Pages with a cursor, newest first.
    const first = await h.call('GET', '/v1/sanctions/dismissals?limit=2', keyA)
    expect(first.body.dismissals).toHaveLength(2)
    expect(first.body.next_cursor).toBeTruthy()
    const second = await h.call(
      'GET',
      `/v1/sanctions/dismissals?limit=2&cursor=${first.body.next_cursor}`,
      keyA,
    )
    expect(second.body.dismissals).toHaveLength(1)
    expect(second.body.next_cursor).toBeNull()
    const ids = [...first.body.dismissals, ...second.body.dismissals].map((d: Json) => d.dismissal_id)
    expect(new Set(ids)).toEqual(new Set(Object.values(dismissed)))
  })

  it('re-opens the dismissal whose entry changed, keeps the untouched one, and raises no alert for the dismissed delisting', async () => {
    const un = await refreshTo('2025-11-18')
    expect(un).toMatchObject({ status: 'updated', diff: { changed: 4, removed: 9 } })
    const alertsA = (await h.call('GET', '/v1/compliance/alerts?limit=200', keyA)).body.alerts.filter(
      (alert: Json) => alert.scope === 'key',
    )
    const alertsB = (await h.call('GET', '/v1/compliance/alerts?limit=200', keyB)).body.alerts.filter(
      (alert: Json) => alert.scope === 'key',
    )
    // B dismissed nothing: the change of Tantoush and the delisting of al-Jawlani are alerts.
    expect(alertsB.map((alert: Json) => alert.entry.entry_id).sort()).toEqual(['111639', '3020633'])
    // A dismissed both: the delisting raises nothing, the change re-opens the dismissal.
    expect(alertsA).toHaveLength(1)
    expect(alertsA[0]).toMatchObject({
      event_type: 'entry_changed',
      entry: { entry_id: '111639' },
      match: { dismissal: { status: 'reopened', reopened_reason: 'list entry changed' } },
    })
    const list = (await h.call('GET', '/v1/sanctions/dismissals', keyA)).body.dismissals
    const byEntry = Object.fromEntries(list.map((d: Json) => [d.entry_id, d]))
    expect(byEntry['111639']).toMatchObject({ status: 'reopened', reopened_reason: 'list entry changed' })
    expect(byEntry['111639'].reopened_at).toBeTruthy()
    expect(byEntry['6907993']).toMatchObject({ status: 'active', reopened_at: null })

    const changed = await screen(keyA, 'Ibrahim Ali Abu Bakr Tantoush')
    expect(changed.body.possible_match).toBe(true)
    expect(matchOf(changed.body, '111639').dismissal).toMatchObject({ status: 'reopened' })
    const untouched = await screen(keyA, 'Eric Badege')
    expect(matchOf(untouched.body, '6907993').dismissal.status).toBe('dismissed')
    expect(untouched.body.possible_match).toBe(false)
  })

  it('a refresh that changes no entry leaves the dismissal dismissed; dismissing again re-arms a re-opened one; DELETE withdraws', async () => {
    const un = await refreshTo('2026-02-27')
    expect(un).toMatchObject({ status: 'updated', diff: { changed: 0 } })
    const untouched = await screen(keyA, 'Eric Badege', 'fuzzy')
    expect(matchOf(untouched.body, '6907993').dismissal.status).toBe('dismissed')

    const again = await h.call('POST', '/v1/sanctions/dismissals', keyA, {
      subject: 'IBRAHIM ALI ABU BAKR TANTOUSH',
      list: 'un',
      entry_id: '111639',
      reason: 'reviewed the AF listing: still not our customer',
      dismissed_by: 'lead@a.example',
    })
    expect(again.status).toBe(201)
    expect(again.body).toMatchObject({
      dismissal_id: dismissed['111639'],
      status: 'active',
      reopened_at: null,
    })
    expect(
      matchOf((await screen(keyA, 'Ibrahim Ali Abu Bakr Tantoush')).body, '111639').dismissal.status,
    ).toBe('dismissed')
    expect((await h.call('DELETE', `/v1/sanctions/dismissals/${dismissed['6907993']}`, keyA)).status).toBe(
      204,
    )
    const withdrawn = await screen(keyA, 'Eric Badege')
    expect(withdrawn.body.possible_match).toBe(true)
    expect(matchOf(withdrawn.body, '6907993').dismissal).toBeUndefined()
  })
  it('erases a subject of key A on request (POST /v1/data/purge), leaving key B alone, and refuses an unconfirmed purge of everything', async () => {
    const unconfirmed = await h.call('POST', '/v1/data/purge', keyA, { all: true })
    expect(unconfirmed.status).toBe(422)
    expect(JSON.stringify(unconfirmed.body)).toContain('confirm')
    const watchedB = (await h.call('GET', '/v1/watchlist?limit=10', keyB)).body.total
    const purged = await h.call('POST', '/v1/data/purge', keyA, { subject: 'ibrahim ali abu bakr tantoush' })
    expect(purged.status).toBe(200)
    const removed = Object.fromEntries(purged.body.removed.map((item: Json) => [item.table, item.count]))
    expect(removed).toMatchObject({ watchlist_entries: 1, sanctions_dismissals: 1, compliance_alerts: 1 })
    expect(purged.body.kept.map((item: Json) => item.category)).toEqual(
      expect.arrayContaining(['key_balance', 'settlements']),
    )
    const left = (await h.call('GET', '/v1/sanctions/dismissals', keyA)).body.dismissals
    expect(left.map((d: Json) => d.entry_id)).toEqual(['3020633'])
    expect((await h.call('GET', '/v1/watchlist?limit=10', keyB)).body.total).toBe(watchedB)
    const again = await h.call('POST', '/v1/data/purge', keyA, { subject: 'Ibrahim Ali Abu Bakr Tantoush' })
    expect(again.body.total_removed).toBe(0)
    const inventory = await h.call('GET', '/v1/data/inventory', keyA)
    const dismissals = inventory.body.find((item: Json) => item.category === 'sanctions_dismissals')
    expect(dismissals).toMatchObject({ record_count: 1, scope: 'caller' })

    // The audit trail: the dismissals and the purge are in it, the rows about the erased subject
    // stay without it, and the chain still verifies.
    expect(purged.body.kept).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ table: 'audit_events', redacted: expect.any(Number) }),
      ]),
    )
    const trail = (await h.call('GET', '/v1/audit/trail?limit=500', keyA)).body.rows as Json[]
    const actions = trail.map((row) => row.action)
    expect(actions).toEqual(expect.arrayContaining(['dismissal.created', 'data.purge']))
    expect(trail.filter((row) => JSON.stringify(row).toLowerCase().includes('tantoush'))).toEqual([])
    expect(
      trail.filter((row) => row.action === 'dismissal.created' && row.subject === null).length,
    ).toBeGreaterThan(0)
    expect((await h.call('GET', '/v1/audit/verify', keyA)).body).toMatchObject({ ok: true })
  })
})
