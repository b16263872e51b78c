import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { createManualClock } from '../../test/support/fakes/index.ts'
import type { StoredListVersion } from './list-store.ts'
import { createScreeningIndex, type HeldList, type SanctionsLog } from './screening-index.ts'
import type { ParsedList } from './types.ts'
import { parseUnXml } from './un-parser.ts'

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures')
const HOUR = 3_600_000

let un: ParsedList

beforeAll(async () => {
  un = await parseUnXml(readFileSync(path.join(fixtures, 'un-handmade.xml')))
})

/** The hand-made UN list as a stored version checked at `checkedAt`. */
function heldUn(id: string, checkedAt: Date, entries = un.entries): HeldList {
  const version: StoredListVersion = {
    id,
    list_key: 'un',
    format: un.format,
    publication_date: un.publication_date,
    sha256: 'a'.repeat(64),
    entry_count: entries.length,
    source: 'fixtures/un-handmade.xml',
    fetched_at: checkedAt,
    checked_at: checkedAt,
    warnings: [],
  }
  return { version, entries }
}

function setUp(start = '2026-03-01T06:00:00.000Z', configured: readonly string[] = ['un']) {
  const clock = createManualClock(start)
  const logged: Array<[string, string]> = []
  const log: SanctionsLog = (level, message) => logged.push([level, message])
  const lists = createScreeningIndex({
    clock,
    staleAfterMs: 36 * HOUR,
    log,
    configured: (key) => configured.includes(key),
  })
  return { clock, lists, logged }
}

describe('screening index', () => {
  it('answers unavailable, never clean, until a held list is indexed', () => {
    const { clock, lists } = setUp()
    expect(lists.ready()).toBe(false)
    expect(lists.screenName('EXAMPLE FRONT COMPANY')).toEqual({
      status: 'unavailable',
      reason: 'sanctions_lists_not_loaded',
      note: expect.stringContaining('No sanctions list is loaded yet'),
      coverage: {
        status: 'none',
        lists_promised: ['ofac_sdn', 'eu', 'un'],
        lists_checked: [],
        lists_not_checked: [
          expect.objectContaining({ list_key: 'ofac_sdn', reason: 'not_configured' }),
          expect.objectContaining({ list_key: 'eu', reason: 'not_configured' }),
          expect.objectContaining({ list_key: 'un', reason: 'loading' }),
        ],
        stale: false,
      },
    })
    lists.hold('un', heldUn('v1', clock.now()))
    expect(lists.screenName('EXAMPLE FRONT COMPANY').status).toBe('unavailable')
    lists.rebuild()
    expect(lists.ready()).toBe(true)
  })

  it('screens against the held lists and names the ones not loaded', () => {
    const { clock, lists } = setUp()
    lists.hold('un', heldUn('v1', clock.now()))
    lists.rebuild()
    const screened = lists.screenName('EXAMPLE FRONT COMPANY')
    expect(screened.status).toBe('ok')
    if (screened.status !== 'ok') return
    expect(screened.matches.map((match) => match.entry_id)).toContain('990002')
    expect(screened.lists.map((list) => list.version_id)).toEqual(['v1'])
    expect(screened.note).toContain(`UN Security Council Consolidated List as of ${un.publication_date}`)
    expect(screened.note).toMatch(/Not loaded, so not checked: OFAC .*, EU /)
    expect(lists.screenAddress('0x0000000000000000000000000000000000000001')).toMatchObject({
      status: 'ok',
      matches: [],
    })
  })

  it('says how old a list is once its latest refresh failed, and when no refresh succeeded for too long', () => {
    // Five days after the fixture's publication (2026-01-15): within the UN's 30-day threshold.
    const { clock, lists } = setUp('2026-01-20T06:00:00.000Z')
    lists.hold('un', heldUn('v1', clock.now()))
    lists.rebuild()
    expect(lists.isStale('un', clock.now())).toBe(false)
    clock.advance(3 * HOUR)
    lists.recordAttempt('un', { at: clock.now(), error: 'HTTP 404' })
    expect(lists.isStale('un', clock.now())).toBe(true)
    expect(lists.listNote()).toContain('last refreshed 3 hours ago')
    expect(lists.listNote()).toContain('the latest refresh failed')

    lists.recordAttempt('un', { at: clock.now(), error: null })
    expect(lists.isStale('un', clock.now())).toBe(false)
    clock.advance(3 * 24 * HOUR)
    expect(lists.listNote()).toContain('last refreshed 3 days ago')
    expect(lists.listNote()).toContain('no refresh has succeeded since')
  })

  it('gives every list checked its publication date and age, stale past its threshold, and says why others are missing', () => {
    const { clock, lists } = setUp('2026-01-20T06:00:00.000Z')
    lists.hold('un', heldUn('v1', clock.now()))
    lists.rebuild()
    const fresh = lists.screenName('EXAMPLE FRONT COMPANY')
    expect(fresh.coverage).toMatchObject({
      status: 'partial',
      lists_checked: [
        {
          list_key: 'un',
          publication_date: '2026-01-15',
          as_of: '2026-01-15',
          age_days: 5,
          max_age_days: 30,
          stale: false,
          stale_reason: null,
        },
      ],
      lists_not_checked: [
        { list_key: 'ofac_sdn', reason: 'not_configured' },
        { list_key: 'eu', reason: 'not_configured' },
      ],
      stale: false,
    })
    expect(fresh.note).not.toContain('refreshed daily')
    expect(fresh.note).toContain(
      'UN Security Council Consolidated List as of 2026-01-15 (publication date, 5 days old)',
    )
    // 31 days after publication the copy is stale, even though its source confirms it daily.
    clock.advance(26 * 24 * HOUR)
    lists.recordAttempt('un', { at: clock.now(), error: null })
    lists.updateVersion({ ...lists.held('un')!.version, checked_at: clock.now() })
    expect(lists.isStale('un', clock.now())).toBe(true)
    expect(lists.staleReason('un', clock.now())).toBe(
      'published 31 days ago, more than the 30-day threshold for this list',
    )
    const old = lists.screenName('EXAMPLE FRONT COMPANY')
    expect(old.coverage).toMatchObject({ stale: true, lists_checked: [{ age_days: 31, stale: true }] })
    expect(old.note).toContain('31 days old; stale: published 31 days ago')
    // An address screen promises the OFAC SDN list only: without it, nothing it promises was checked.
    expect(lists.screenAddress('0x0000000000000000000000000000000000000001').coverage).toMatchObject({
      status: 'none',
      lists_promised: ['ofac_sdn'],
      lists_checked: [],
    })
  })

  it("gives each screen the list note and coverage the index reports at that moment, whatever the lists' state", () => {
    const { clock, lists } = setUp('2026-01-20T06:00:00.000Z', ['un', 'eu'])
    const agree = () => {
      const promisedByNames = lists.coverage(['ofac_sdn', 'eu', 'un'])
      for (const screen of [
        lists.screenName('EXAMPLE FRONT COMPANY'),
        lists.screenNameFuzzy('EXAMPLE FRONT'),
      ]) {
        expect(screen.note).toBe(lists.listNote())
        expect(screen.coverage).toEqual(promisedByNames)
      }
      expect(lists.screenAddress('0x0000000000000000000000000000000000000001').coverage).toEqual(
        lists.coverage(['ofac_sdn']),
      )
    }
    agree() // nothing loaded: unavailable
    lists.recordAttempt('eu', { at: clock.now(), error: 'HTTP 503' })
    lists.hold('un', heldUn('v1', clock.now()))
    lists.rebuild()
    agree() // one list loaded, one failed, one not configured
    clock.advance(3 * HOUR)
    lists.recordAttempt('un', { at: clock.now(), error: 'HTTP 404' })
    agree() // its latest refresh failed
    clock.advance(30 * 24 * HOUR)
    agree() // past its age threshold, not confirmed for days
  })

  it('tells a list that is loading from one whose first read failed', () => {
    const { clock, lists } = setUp('2026-01-20T06:00:00.000Z', ['un', 'eu'])
    expect(lists.listStates().map((state) => [state.list_key, state.state])).toEqual([
      ['ofac_sdn', 'not_configured'],
      ['eu', 'loading'],
      ['un', 'loading'],
    ])
    lists.recordAttempt('eu', { at: clock.now(), error: 'HTTP 503' })
    expect(lists.listStates()[1]).toMatchObject({
      list_key: 'eu',
      state: 'load_failed',
      detail: expect.stringContaining('HTTP 503'),
    })
  })

  it('takes a newer row of the version it holds, and ignores rows of other versions', () => {
    const { clock, lists } = setUp()
    lists.hold('un', heldUn('v1', clock.now()))
    lists.rebuild()
    clock.advance(HOUR)
    lists.updateVersion({ ...heldUn('v2', clock.now()).version })
    expect(lists.loaded('un')?.checked_at.toISOString()).toBe('2026-03-01T06:00:00.000Z')
    lists.updateVersion({ ...lists.held('un')!.version, checked_at: clock.now() })
    expect(lists.loaded('un')?.checked_at.toISOString()).toBe(clock.now().toISOString())
  })

  it('keeps the previous index in use when a rebuild fails', () => {
    const { clock, lists, logged } = setUp()
    lists.hold('un', heldUn('v1', clock.now()))
    lists.rebuild()
    const doubled = [...un.entries, ...un.entries]
    lists.hold('un', heldUn('v2', clock.now(), doubled))
    lists.rebuild()
    expect(logged).toEqual([['error', 'sanctions index not rebuilt; the previous index stays in use']])
    const screened = lists.screenName('EXAMPLE FRONT COMPANY')
    expect(screened.status === 'ok' && screened.matches.map((match) => match.entry_id)).toContain('990002')
  })
})
