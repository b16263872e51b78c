import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTestDatabase } from '../../test/support/database.ts'
import type { SanctionsNameScreen } from '../checks/sanctions-name-screen.ts'
import type { KeyCaller } from '../context.ts'
import { createDismissalStore, type DismissalStore, entryFingerprint } from '../sanctions/dismissal-store.ts'
import type { SanctionsService } from '../sanctions/sanctions-service.ts'
import type { SanctionsEntry } from '../sanctions/types.ts'
import { assessSanctions } from '../scoring/company-assessments.ts'
import type { Database } from '../store/database.ts'
import type { OperationContext } from './operation-context.ts'
import { dismissalAwareScreen } from './sanctions-dismissals.ts'

const ENTRY: SanctionsEntry = {
  list: 'un',
  entry_id: '6907993',
  entry_type: 'person',
  name: 'ERIC BADEGE',
  aliases: [{ name: 'Badege Eric', kind: 'aka' }],
  programmes: ['CD'],
  countries: ['CD'],
  listed_on: '2012-12-31',
  identifiers: [],
}
const coverage = {
  status: 'complete' as const,
  lists_promised: ['ofac_sdn', 'eu', 'un'],
  lists_checked: [],
  lists_not_checked: [],
  stale: false,
}

/** The checks' port answering one UN match for any name. */
const port: SanctionsNameScreen = {
  coverage: () => coverage as never,
  screenName: async () => ({
    status: 'ok',
    possible_match: true,
    matches: [
      {
        list: 'UN Security Council Consolidated List',
        list_key: 'un',
        entry_id: ENTRY.entry_id,
        matched_name: ENTRY.name,
        match_type: 'name_exact',
        match_score: 1,
      },
    ],
    list_dates: { 'UN Security Council Consolidated List': '2025-11-18' },
    coverage: coverage as never,
  }),
}

function ctxOf(keyId: string, store: DismissalStore, listed: SanctionsEntry) {
  const caller: KeyCaller = { kind: 'key', keyId, tier: 'pro', mode: 'live', role: 'customer' }
  return {
    caller,
    deps: {
      sanctions: port,
      dismissals: store,
      sanctionsLists: { entry: () => listed } as unknown as SanctionsService,
    },
  } as unknown as OperationContext<'sanctions' | 'dismissals' | 'sanctionsLists'>
}

/** Entity checks: the sanctions port the checks use applies the calling key's dismissals. */
describe('entity checks with dismissals', () => {
  let database: Database
  let store: DismissalStore

  beforeAll(async () => {
    database = await openTestDatabase('pglite')
    store = createDismissalStore({ db: database.db, clock: { now: () => new Date('2026-01-05T09:00:00Z') } })
    await store.create('key_a', {
      subject_type: 'name',
      subject: 'Eric Badege',
      entry: ENTRY,
      reason: 'born 1990, not 1971',
      dismissed_by: 'analyst@a.example',
    })
  })
  afterAll(async () => {
    await database?.close()
  })

  it('takes a dismissed match out of the possible match and names it in the evidence; another key still gets the match', async () => {
    const screened = await dismissalAwareScreen(ctxOf('key_a', store, ENTRY))!.screenName('BADEGE, Eric')
    expect(screened).toMatchObject({ status: 'ok', possible_match: false, matches: [] })
    const assessment = assessSanctions({ names: ['Eric Badege'], result: screened, fetched_at: 'now' })
    expect(assessment.sanctions_match).toBe(false)
    expect(assessment.factors[0]!.evidence).toContain(
      '1 match dismissed by this key (entry unchanged since): ERIC BADEGE on UN Security Council Consolidated List (6907993), dismissed by analyst@a.example on 2026-01-05: born 1990, not 1971',
    )

    const other = await dismissalAwareScreen(ctxOf('key_b', store, ENTRY))!.screenName('Eric Badege')
    expect(other).toMatchObject({ possible_match: true })
    expect(
      assessSanctions({ names: ['Eric Badege'], result: other, fetched_at: 'now' }).sanctions_match,
    ).toBe(true)
  })

  it('counts the match again once the listed entry changed (re-opened)', async () => {
    const changed: SanctionsEntry = { ...ENTRY, countries: ['CD', 'RW'] }
    expect(entryFingerprint(changed)).not.toBe(entryFingerprint(ENTRY))
    // The same content in another order is the same entry.
    expect(entryFingerprint({ ...ENTRY, programmes: ['CD'], countries: ['CD'] })).toBe(
      entryFingerprint(ENTRY),
    )
    const screened = await dismissalAwareScreen(ctxOf('key_a', store, changed))!.screenName('Eric Badege')
    expect(screened).toMatchObject({ possible_match: true })
    const [stored] = (await store.list('key_a', { limit: 10 })).dismissals
    expect(stored).toMatchObject({ status: 'reopened', reopened_reason: 'list entry changed' })
  })
})
