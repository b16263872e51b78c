import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countExecutes } from '../../test/support/count-executes.ts'
import { createDatabase, type Database, preparedRunner, rowsOf } from './database.ts'
import { createGroupCommit, type GroupPart, StatementParams } from './group-commit.ts'

let database: Database

beforeAll(async () => {
  database = await createDatabase()
  await database.db.execute(sql`create table gc_a (id text primary key)`)
  await database.db.execute(sql`create table gc_b (id text primary key, n int not null)`)
})
afterAll(async () => {
  await database.close()
})

/** Inserts ids into `table`; each item's result is whether its row was inserted. */
function insertPart(table: 'gc_a' | 'gc_b'): GroupPart<string, boolean> {
  const insert = (ids: readonly string[], name: string, params: StatementParams) => {
    const values =
      table === 'gc_a'
        ? 'select id from unnest($ids::text[]) as v(id)'
        : 'select id, 1 from unnest($ids::text[]) as v(id)'
    return `${name} as (insert into ${table} ${values.replace('$ids', params.add(ids))} returning id)`
  }
  const inserted = (values: readonly unknown[], ids: readonly string[]) => {
    const set = new Set(values.map(String))
    return ids.map((id) => set.has(id))
  }
  return {
    statement: async (ids, prefix, params) => ({
      ctes: [insert(ids, `${prefix}ins`, params)],
      result: `select id as r from ${prefix}ins`,
    }),
    results: async (values, ids) => inserted(values, ids),
    async alone(ids) {
      const params = new StatementParams()
      const rows = (await database.executePrepared(
        `with ${insert(ids, 'ins', params)} select id as r from ins`,
        params.values,
      )) as { r: string }[]
      return inserted(
        rows.map((row) => row.r),
        ids,
      )
    },
  }
}

const count = async (table: string) =>
  Number(
    rowsOf<{ n: unknown }>(await database.db.execute(sql`select count(*) as n from ${sql.raw(table)}`))[0]?.n,
  )

describe('group commit', () => {
  it('writes the items of several parts queued in one turn in one statement, each with its own result', async () => {
    let statements = 0
    const db = countExecutes(database.db, () => statements++)
    const group = createGroupCommit(db)
    const a = group.part(insertPart('gc_a'))
    const b = group.part(insertPart('gc_b'))
    const results = await Promise.all([a('a1'), b('b1'), a('a2'), b('b2'), b('b3')])
    expect(results).toEqual([true, true, true, true, true])
    expect(statements).toBe(1)
    expect(await count('gc_a')).toBe(2)
    expect(await count('gc_b')).toBe(3)
  })

  it('writes each part alone when the database refused the shared statement: one part failing costs the other nothing', async () => {
    let statements = 0
    const db = countExecutes(database.db, () => statements++)
    const group = createGroupCommit(db)
    const a = group.part(insertPart('gc_a'))
    const b = group.part(insertPart('gc_b'))
    // b1 exists already: the shared statement violates gc_b's primary key, so nothing of it is written.
    const outcomes = await Promise.allSettled([a('a3'), b('b1'), a('a4')])
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(statements).toBe(1) // the shared statement; the parts' own go through `database.db`
    expect(await count('gc_a')).toBe(4)
    expect(await count('gc_b')).toBe(3)
  })

  it('fails every item when the failure is not a refusal (a lost connection: its outcome in doubt)', async () => {
    const lost = Object.assign(new Error('connection closed'), { code: 'CONNECTION_CLOSED' })
    const failing = new Proxy(database.db, {
      get(target, property, receiver) {
        if (property === 'execute' || property === preparedRunner) return async () => Promise.reject(lost)
        return Reflect.get(target, property, receiver)
      },
    })
    const group = createGroupCommit(failing)
    let alone = 0
    const part = (table: 'gc_a' | 'gc_b'): GroupPart<string, boolean> => {
      const inner = insertPart(table)
      return {
        ...inner,
        alone: (ids) => {
          alone += 1
          return inner.alone(ids)
        },
      }
    }
    const a = group.part(part('gc_a'))
    const b = group.part(part('gc_b'))
    const outcomes = await Promise.allSettled([a('a5'), b('b5')])
    expect(outcomes).toEqual([
      { status: 'rejected', reason: lost },
      { status: 'rejected', reason: lost },
    ])
    expect(alone).toBe(0)
    expect(await count('gc_a')).toBe(4)
  })
})
