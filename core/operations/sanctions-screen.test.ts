import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { createManualClock } from '../../test/support/fakes/index.ts'
import type { SanctionsService } from '../sanctions/sanctions-service.ts'
import { createScreeningIndex } from '../sanctions/screening-index.ts'
import type { ListKey, ParsedList } from '../sanctions/types.ts'
import { parseUnXml } from '../sanctions/un-parser.ts'
import type { OperationContext } from './operation-context.ts'
import { sanctionsScreen } from './sanctions-screen.ts'

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../sanctions/fixtures')
const DAY = 86_400_000

let un: ParsedList
beforeAll(async () => {
  un = await parseUnXml(readFileSync(path.join(fixtures, 'un-handmade.xml')))
})

/**
 * The three lists held with the given publication dates (no refresh source, so only their age
 * can make them stale), and the screen operation reading them with `now` on the clock.
 */
function screenAt(now: string, published: Record<ListKey, string>) {
  const clock = createManualClock(now)
  const lists = createScreeningIndex({ clock, staleAfterMs: 36 * 3_600_000 })
  for (const key of ['ofac_sdn', 'eu', 'un'] as const) {
    const entries = key === 'un' ? un.entries : []
    lists.hold(key, {
      version: {
        id: `${key}-v1`,
        list_key: key,
        format: key === 'un' ? un.format : key === 'eu' ? 'eu_fsf_xml' : 'ofac_sdn_csv',
        publication_date: published[key],
        sha256: 'a'.repeat(64),
        entry_count: entries.length,
        source: 'test',
        fetched_at: new Date(`${published[key]}T08:00:00Z`),
        checked_at: new Date(`${published[key]}T08:00:00Z`),
        warnings: [],
      },
      entries,
    })
  }
  lists.rebuild()
  const ctx = {
    clock,
    caller: { kind: 'anonymous' },
    deps: { sanctionsLists: lists as unknown as SanctionsService },
  } as unknown as OperationContext<'sanctionsLists' | 'dismissals'>
  return {
    clock,
    screen: (match: 'exact' | 'fuzzy') =>
      sanctionsScreen.run({ name: 'Zqxv Wholly Unlisted Trading Company', match }, ctx),
  }
}

describe('sanctions screen: a stale list is never clear', () => {
  // OFAC SDN published yesterday; the EU and UN lists exactly at their 30-day threshold.
  const today = '2026-03-01T12:00:00.000Z'
  const published = { ofac_sdn: '2026-02-28', eu: '2026-01-30', un: '2026-01-30' }

  it.each(['exact', 'fuzzy'] as const)(
    '%s: clear at the threshold, incomplete one day past it',
    async (mode) => {
      const { clock, screen } = screenAt(today, published)
      const current = await screen(mode)
      expect(
        current.coverage.lists_checked.map((list) => [list.list_key, list.age_days, list.stale]),
      ).toEqual([
        ['ofac_sdn', 1, false],
        ['eu', 30, false],
        ['un', 30, false],
      ])
      expect(current).toMatchObject({
        possible_match: false,
        result: 'clear',
        coverage: { status: 'complete', stale: false },
      })

      clock.advance(DAY)
      const stale = await screen(mode)
      expect(stale.coverage.lists_checked.map((list) => [list.list_key, list.age_days, list.stale])).toEqual([
        ['ofac_sdn', 2, false],
        ['eu', 31, true],
        ['un', 31, true],
      ])
      expect(stale).toMatchObject({
        possible_match: false,
        result: 'incomplete',
        coverage: { status: 'partial', stale: true, lists_not_checked: [] },
      })
      expect(stale.coverage.lists_checked[1]!.stale_reason).toBe(
        'published 31 days ago, more than the 30-day threshold for this list',
      )
      expect(stale.list_note).toContain('stale: published 31 days ago')
    },
  )
})
