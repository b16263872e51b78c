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

function setUp() {
  const clock = createManualClock('2026-03-01T06:00:00.000Z')
  const logged: Array<[string, string]> = []
  const log: SanctionsLog = (level, message) => logged.push([level, message])
  const lists = createScreeningIndex({ clock, staleAfterMs: 36 * HOUR, log })
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
    const { clock, lists } = setUp()
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
