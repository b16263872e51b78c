import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPglitePrepared } from './pglite-prepared.ts'

let client: PGlite
let prepared: ReturnType<typeof createPglitePrepared>

beforeAll(async () => {
  client = new PGlite()
  await client.exec('create table t (id text primary key, n bigint not null, at timestamptz, doc jsonb)')
  prepared = createPglitePrepared(client)
})
afterAll(async () => {
  await client.close()
})

const INSERT = `insert into t (id, n, at, doc)
  select id, n, at::timestamptz, doc::jsonb from unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) as v(id, n, at, doc)
  returning id, n, at, doc`

describe('PGlite prepared statements', () => {
  it('answers what client.query answers, for every batch size, with the same types', async () => {
    const rows = (ids: string[]) => [
      ids,
      ids.map((_, i) => String(9_007_199_254_740_993n + BigInt(i))),
      ids.map((_, i) => (i % 2 ? null : '2026-11-26T10:00:00.000Z')),
      ids.map((id) => JSON.stringify({ id, quote: 'a "b" \\ c', list: [1, null] })),
    ]
    const viaPrepared = [
      ...(await prepared(INSERT, rows(['p1']))),
      ...(await prepared(INSERT, rows(['p2', 'p3, with {braces}', 'p4']))),
    ]
    const viaQuery = (
      await client.query<Record<string, unknown>>(INSERT, rows(['q1', 'q2, with {braces}', 'q3']))
    ).rows
    expect(viaPrepared.map((row) => row.id)).toEqual(['p1', 'p2', 'p3, with {braces}', 'p4'])
    expect(viaPrepared[1]).toEqual({
      ...viaQuery[0],
      id: 'p2',
      doc: { ...(viaQuery[0]!.doc as object), id: 'p2' },
    })
    expect(viaPrepared[2]).toEqual({
      ...viaQuery[1],
      id: 'p3, with {braces}',
      doc: { ...(viaQuery[1]!.doc as object), id: 'p3, with {braces}' },
    })
    expect(typeof viaPrepared[0]!.n).toBe(typeof viaQuery[0]!.n)
    expect(viaPrepared[0]!.at).toBeInstanceOf(Date)
  })

  it('throws the database error with its SQLSTATE, and the statement runs again afterwards', async () => {
    await expect(prepared(INSERT, [['p1'], ['1'], [null], [null]])).rejects.toMatchObject({ code: '23505' })
    const [row] = await prepared('select count(*)::int as n from t where id = any($1::text[])', [
      ['p1', 'p2'],
    ])
    expect(row).toEqual({ n: 2 })
    expect(await prepared(INSERT, [['p5'], ['5'], [null], [null]])).toHaveLength(1)
  })

  it('never runs inside another caller’s open transaction: it waits for it to end', async () => {
    const order: string[] = []
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const transaction = client.transaction(async (tx) => {
      await tx.query(`insert into t (id, n) values ('in-tx', 1)`)
      await held
      order.push('transaction ends')
      await tx.rollback()
    })
    const statement = prepared('select count(*)::int as n from t where id = $1', ['in-tx']).then((rows) => {
      order.push('statement')
      return rows
    })
    await new Promise((resolve) => setTimeout(resolve, 50))
    release()
    await transaction.catch(() => {})
    expect(await statement).toEqual([{ n: 0 }])
    expect(order).toEqual(['transaction ends', 'statement'])
  })
})
