import { describe, expect, it } from 'vitest'
import { fakeCoverage, fakeListStates } from '../../test/support/sanctions/coverage-fixtures.ts'
import { coverageGaps, coverageOf, DEFAULT_MAX_LIST_AGE_DAYS, pastMaxAge } from './coverage.ts'
import { LIST_KEYS } from './types.ts'

const NOW = new Date('2026-03-01T12:00:00Z')

describe('sanctions coverage and freshness', () => {
  it('one age rule: a list exactly at its threshold is current, one day more is stale', () => {
    expect(pastMaxAge(7, 7)).toBe(false)
    expect(pastMaxAge(8, 7)).toBe(true)
    expect(pastMaxAge(30, DEFAULT_MAX_LIST_AGE_DAYS.eu)).toBe(false)
    expect(pastMaxAge(31, DEFAULT_MAX_LIST_AGE_DAYS.eu)).toBe(true)
  })

  it('is complete only when every promised list was checked and none is stale', () => {
    // Published 7 days before NOW: OFAC SDN at its threshold (7), EU and UN well within theirs.
    const atThreshold = coverageOf(fakeListStates(LIST_KEYS, { date: '2026-02-22', now: NOW }), LIST_KEYS)
    expect(atThreshold).toMatchObject({ status: 'complete', stale: false })
    expect(coverageGaps(atThreshold)).toBe('')
    // One day more: OFAC SDN is stale, so the coverage is partial though every list was read.
    const past = coverageOf(fakeListStates(LIST_KEYS, { date: '2026-02-21', now: NOW }), LIST_KEYS)
    expect(past).toMatchObject({ status: 'partial', stale: true, lists_not_checked: [] })
    expect(past.lists_checked.map((list) => [list.list_key, list.stale])).toEqual([
      ['ofac_sdn', true],
      ['eu', false],
      ['un', false],
    ])
    expect(coverageGaps(past)).toBe(
      'stale: OFAC SDN (published 8 days ago, more than the 7-day threshold for this list)',
    )
  })

  it('names missing and stale lists together; none when nothing was checked', () => {
    const states = fakeListStates(['eu', 'un'], { date: '2026-01-01', now: NOW, missing: 'load_failed' })
    const partial = coverageOf(states, LIST_KEYS)
    expect(partial.status).toBe('partial')
    expect(coverageGaps(partial, { detail: false })).toBe(
      'not checked: OFAC SDN (load_failed); stale: EU Consolidated Financial Sanctions List (published 59 days ago, more than the 30-day threshold for this list); UN Security Council Consolidated List (published 59 days ago, more than the 30-day threshold for this list)',
    )
    expect(coverageOf(fakeListStates([], { now: NOW }), LIST_KEYS).status).toBe('none')
    // The fixture's lists are current by default (published the day before now).
    expect(fakeCoverage()).toMatchObject({ status: 'complete', stale: false })
  })
})
