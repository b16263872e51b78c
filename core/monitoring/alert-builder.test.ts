import { describe, expect, it } from 'vitest'
import { diffEntry } from '../sanctions/list-diff.ts'
import type { SanctionsEntry } from '../sanctions/types.ts'
import { alertIdOf, buildAlerts, type KeySubject } from './alert-builder.ts'

const entry = (id: string, name: string, extra: Partial<SanctionsEntry> = {}): SanctionsEntry => ({
  list: 'ofac_sdn',
  entry_id: id,
  entry_type: 'entity',
  name,
  aliases: [],
  programmes: ['SDGT'],
  countries: ['IR'],
  listed_on: null,
  identifiers: [],
  ...extra,
})

const subject = (
  keyId: string,
  type: 'name' | 'wallet' | 'registration',
  value: string,
  basis: 'checked' | 'watchlist' = 'watchlist',
  country: string | null = null,
): KeySubject => ({
  key_id: keyId,
  basis,
  subject: { type, value, country, chain: null },
  watchlist_id: basis === 'watchlist' ? `wl-${value}` : null,
  check_id: basis === 'checked' ? `chk-${value}` : null,
})

describe('alerts from one list diff', () => {
  const added = entry('1', 'Acme Trading LLC', {
    identifiers: [
      { type: 'crypto_address', value: '0xAbC0000000000000000000000000000000000001', currency: 'ETH' },
    ],
  })
  const removed = entry('2', 'Old Shipping Co')
  const before = entry('3', 'Delta Metals', { aliases: [] })
  const after = entry('3', 'Delta Metals', {
    aliases: [{ name: 'Delta Metal Works', kind: 'aka', quality: 'strong' }],
    identifiers: [{ type: 'registration', value: 'HRB 12345', country: 'DE' }],
  })
  const diff = {
    diff_id: 'diff-1',
    list_key: 'ofac_sdn' as const,
    from_date: '2025-10-30',
    to_date: '2025-11-19',
    added: [added],
    removed: [removed],
    changed: [diffEntry(before, after)!],
    created_at: new Date('2025-11-20T00:00:00Z'),
  }

  it('makes one list alert per change with the documented severities', () => {
    const alerts = buildAlerts(diff, [])
    expect(alerts.map((a) => [a.alert.event_type, a.alert.severity, a.key_id])).toEqual([
      ['entry_added', 'medium', null],
      ['entry_removed', 'informational', null],
      ['entry_changed', 'low', null],
    ])
    expect(alerts[2]!.alert.changed_fields).toEqual(['aliases', 'identifiers'])
    expect(alerts[0]!.alert).toMatchObject({
      jurisdiction: 'us',
      list_date: '2025-11-19',
      scope: 'list',
      match: null,
    })
  })

  it('matches subjects by address (any case), name word order, registration and alias, per key', () => {
    const alerts = buildAlerts(diff, [
      subject('k1', 'wallet', '0xabc0000000000000000000000000000000000001', 'checked'),
      subject('k1', 'name', 'Shipping Co Old'),
      subject('k2', 'registration', 'hrb-12345', 'watchlist', 'DE'),
      subject('k3', 'name', 'Delta Metal Works'),
      subject('k4', 'name', 'Unrelated Bakery'),
    ])
    const keyAlerts = alerts.filter((a) => a.key_id !== null)
    const view = keyAlerts.map((a) => [
      a.key_id,
      a.alert.entry.entry_id,
      a.alert.match?.kind,
      a.alert.match?.basis,
      a.alert.severity,
    ])
    expect(view).toEqual(
      expect.arrayContaining([
        ['k1', '1', 'crypto_address', 'checked', 'critical'],
        ['k1', '2', 'name_tokens', 'watchlist', 'low'],
        ['k2', '3', 'registration', 'watchlist', 'high'],
        ['k3', '3', 'name_exact', 'watchlist', 'high'],
      ]),
    )
    expect(keyAlerts).toHaveLength(4)
    expect(keyAlerts.some((a) => a.key_id === 'k4')).toBe(false)
  })

  it('gives stable ids per diff, entry and key', () => {
    expect(alertIdOf('d', 'e', 'k')).toBe(alertIdOf('d', 'e', 'k'))
    expect(alertIdOf('d', 'e', 'k')).not.toBe(alertIdOf('d', 'e', null))
  })
})
