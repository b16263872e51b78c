import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { describe, expect, it } from 'vitest'
import { CHAINED_FIELDS, type ChainedFields, GENESIS_HASH, sealAuditRow } from './audit-chain.ts'

/** The rule the audit docs publish, written out plainly: what any verifier recomputes. */
function publishedHash(row: ChainedFields): { hash: string; digests: Record<string, string> } {
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')
  const hashes: Record<string, string> = {}
  for (const field of CHAINED_FIELDS) {
    const value = row[field]
    const hashed =
      value === null || value === undefined
        ? null
        : typeof value === 'bigint'
          ? value.toString()
          : value instanceof Date
            ? value.toISOString()
            : value
    hashes[field] = sha256(canonicalize(hashed) ?? 'null')
  }
  const digests = Object.fromEntries(CHAINED_FIELDS.map((field) => [field, hashes[field]!.slice(0, 12)]))
  return { hash: sha256(canonicalize(hashes) ?? ''), digests }
}

/** A call row with the escape-heavy receipt id and nested detail the hashing must get right. */
const callRow: ChainedFields = {
  chain: 'key:k1',
  seq: 42n,
  key_id: 'k1',
  at: new Date('2026-11-26T10:00:00.123Z'),
  kind: 'call',
  action: 'sanctions_screen',
  outcome: 'ok',
  subject_sha256: null,
  paid_with: 'account',
  amount_micros: 5000n,
  receipt_id: 'quote " backslash \\ line\u2028sep \u0007 bell émoji 🙂',
  receipt: null,
  detail: { z: 1, a: ['x', null, 2.5], é: { b: true } },
  prev_hash: GENESIS_HASH,
}

describe('sealAuditRow', () => {
  it('hashes every field as the JCS of its value, strings that need escaping and nulls included', () => {
    expect(sealAuditRow(callRow)).toEqual(publishedHash(callRow))
  })

  it('refuses a field with a lone surrogate, as the JCS library does', () => {
    const row: ChainedFields = {
      ...callRow,
      amount_micros: null,
      detail: null,
      receipt_id: 'lone \ud800 surrogate',
    }
    expect(() => publishedHash(row)).toThrow()
    expect(() => sealAuditRow(row)).toThrow()
  })
})
