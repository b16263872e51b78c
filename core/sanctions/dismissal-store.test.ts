import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { countExecutes } from '../../test/support/count-executes.ts'
import { openTestDatabase } from '../../test/support/database.ts'
import { type Database, preparedRunner } from '../store/database.ts'
import { createDismissalStore, DISMISSED_SUBJECTS_MS, type DismissalStore } from './dismissal-store.ts'
import type { SanctionsEntry } from './types.ts'

const ENTRY: SanctionsEntry = {
  list: 'un',
  entry_id: '6907993',
  entry_type: 'person',
  name: 'ERIC BADEGE',
  aliases: [],
  programmes: ['CD'],
  countries: ['CD'],
  listed_on: '2012-12-31',
  identifiers: [],
}
const MATCHES = [{ list_key: 'un' as const, entry_id: ENTRY.entry_id }]
const current = () => ENTRY
const clock = { now: () => new Date('2026-01-05T09:00:00Z') }

/**
 * Two stores on one database stand for two processes of one deployment; each counts its own
 * statements and keeps its own list of the subjects a key dismissed something for.
 */
describe('dismissed subjects held per key', () => {
  let database: Database
  let now = 0
  let statements = 0
  let here: DismissalStore
  let elsewhere: DismissalStore
  let key = 0
  let keyId = ''

  beforeAll(async () => {
    database = await openTestDatabase('pglite')
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(() => {
    now = 0
    statements = 0
    keyId = `key_${++key}`
    const counted = countExecutes(database.db, () => statements++)
    here = createDismissalStore({ db: counted, clock, monotonic: () => now })
    elsewhere = createDismissalStore({ db: database.db, clock, monotonic: () => now })
  })

  const dismiss = (store: DismissalStore, subject: string) =>
    store.create(keyId, {
      subject_type: 'name',
      subject,
      entry: ENTRY,
      reason: 'not them',
      dismissed_by: 'a@x',
    })
  const dismissalOf = async (store: DismissalStore, subject: string) =>
    (await store.apply(keyId, 'name', subject, MATCHES, current))[0]!.dismissal?.status

  it('screens of a subject the key dismissed nothing for read the database once per bound', async () => {
    await dismiss(here, 'Eric Badege')
    statements = 0
    for (let i = 0; i < 5; i++) expect(await dismissalOf(here, 'Someone Else')).toBeUndefined()
    expect(statements).toBe(1)
    // A subject the list names reads its rows, every time.
    expect(await dismissalOf(here, 'BADEGE, Eric')).toBe('dismissed')
    expect(statements).toBeGreaterThan(1)
    // Past the bound the list is read again before the answer.
    now += DISMISSED_SUBJECTS_MS + 1
    statements = 0
    expect(await dismissalOf(here, 'Someone Else')).toBeUndefined()
    expect(statements).toBe(1)
  })

  it('another process’s dismissal counts once the bound has passed', async () => {
    expect(await dismissalOf(here, 'Eric Badege')).toBeUndefined()
    await dismiss(elsewhere, 'Eric Badege')
    // Within the bound this process may not know it yet: the match counts (never hidden).
    now += DISMISSED_SUBJECTS_MS / 4
    expect(await dismissalOf(here, 'Eric Badege')).toBeUndefined()
    now += DISMISSED_SUBJECTS_MS
    expect(await dismissalOf(here, 'Eric Badege')).toBe('dismissed')
  })

  it('reads the list again in the background past half the bound, without holding the screen', async () => {
    expect(await dismissalOf(here, 'Eric Badege')).toBeUndefined()
    await dismiss(elsewhere, 'Eric Badege')
    now += DISMISSED_SUBJECTS_MS * 0.75
    expect(await dismissalOf(here, 'Eric Badege')).toBeUndefined()
    await expect.poll(() => dismissalOf(here, 'Eric Badege')).toBe('dismissed')
  })

  it('a dismissal withdrawn by another process is not applied, though the list still names it', async () => {
    const { dismissal } = await dismiss(here, 'Eric Badege')
    expect(await dismissalOf(here, 'Eric Badege')).toBe('dismissed')
    expect(await elsewhere.remove(keyId, dismissal.dismissal_id)).toBe(true)
    expect(await dismissalOf(here, 'Eric Badege')).toBeUndefined()
  })

  it('the process that records a dismissal applies it at once, even with a list read under way', async () => {
    // The list read answers only after the dismissal committed, with what it read before it.
    let answerRead: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      answerRead = resolve
    })
    let holding = true
    const slow = new Proxy(database.db, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver)
        if (property !== preparedRunner) return value
        return async (...args: unknown[]) => {
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
          if (holding) {
            holding = false
            await held
          }
          return result
        }
      },
    })
    const store = createDismissalStore({ db: slow, clock, monotonic: () => now })
    const before = store.apply(keyId, 'name', 'Eric Badege', MATCHES, current)
    await expect.poll(() => holding).toBe(false)
    await dismiss(store, 'Eric Badege')
    // A screen that starts after the dismissal is recorded does not join the older read.
    const after = dismissalOf(store, 'Eric Badege')
    answerRead()
    expect((await before)[0]!.dismissal).toBeUndefined()
    expect(await after).toBe('dismissed')
    expect(await dismissalOf(store, 'Eric Badege')).toBe('dismissed')
  })

  it('another key never benefits from a key’s dismissals', async () => {
    await dismiss(here, 'Eric Badege')
    expect(await dismissalOf(here, 'Eric Badege')).toBe('dismissed')
    const other = (await here.apply(`${keyId}_other`, 'name', 'Eric Badege', MATCHES, current))[0]!
    expect(other.dismissal).toBeUndefined()
  })

  it('with the list turned off, every screen with a match reads the database', async () => {
    const uncached = createDismissalStore({
      db: countExecutes(database.db, () => statements++),
      clock,
      subjectsCacheMs: 0,
    })
    statements = 0
    for (let i = 0; i < 3; i++)
      expect((await uncached.apply(keyId, 'name', 'Someone', MATCHES, current))[0]!.dismissal).toBeUndefined()
    expect(statements).toBe(3)
  })
})
