import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import canonicalize from 'canonicalize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main as cli } from '../../client/cli.ts'
import { ephemeralSigner, type ReportSigner } from '../reports/evidence.ts'
import type { LoadedList } from '../sanctions/screening-index.ts'
import {
  type AnswerReceipt,
  canonicalReceiptBytes,
  jcsSha256,
  newReceiptId,
  signAnswerReceipt,
  verifyAnswerReceipt,
} from './answer-receipt.ts'

const docs = readFileSync(new URL('../../docs/evidence.md', import.meta.url), 'utf8')

/** The openssl/jq recipe exactly as docs/evidence.md shows it (the sh block after its marker). */
function documentedRecipe(): string {
  const start = docs.indexOf('<!-- receipt-openssl-recipe -->')
  const block = /```sh\n([\s\S]*?)```/.exec(docs.slice(start))
  if (start < 0 || !block) throw new Error('docs/evidence.md has no marked openssl recipe')
  return block[1]!
}

const LIST: LoadedList = {
  list_key: 'un',
  list: 'UN Security Council Consolidated List',
  version_id: 'v-1',
  publication_date: '2026-02-27',
  as_of: '2026-02-27',
  sha256: 'ab'.repeat(32),
  entry_count: 1000,
  fetched_at: new Date('2026-02-28T00:00:00Z'),
  checked_at: new Date('2026-02-28T00:00:00Z'),
}

describe('answer receipts', () => {
  let signer: ReportSigner
  let receipt: AnswerReceipt
  let dir: string
  const output = { possible_match: false, matches: [], score: 0.25, note: 'Café “quoted” ✓' }

  beforeAll(async () => {
    signer = await ephemeralSigner()
    receipt = signAnswerReceipt(
      {
        operation: 'sanctions_screen',
        quality: 'fresh',
        requestId: 'req-1',
        input: { name: 'Jürgen Müller', country: 'DE' },
        output,
        payer: { kind: 'x402', network: 'eip155:8453', payer: '0xabc' },
        charged: {
          paidWith: 'x402',
          amount: 5000n,
          settlement: {
            state: 'settled',
            amount: 5000n,
            fallback: false,
            response: { success: true, transaction: '0xfeed', network: 'eip155:8453', payer: '0xabc' },
          },
        },
        issuedAt: new Date('2026-03-01T12:00:00Z'),
        screening: { lists: [LIST], matcherVersion: 'screen-test' },
      },
      signer,
      'https://api.example.com/.well-known/jwks.json',
    )
    dir = mkdtempSync(path.join(os.tmpdir(), 'receipt-'))
    writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify({ keys: [signer.publicJwk] }))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const write = (name: string, value: unknown) => {
    const file = path.join(dir, name)
    writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2))
    return file
  }

  it('says how an x402 answer was paid, with the list versions and the matcher', () => {
    expect(receipt).toMatchObject({
      operation: 'sanctions_screen',
      response_hash: jcsSha256(output),
      payment: {
        method: 'x402',
        amount_micros: '5000',
        amount_usd: '0.005000',
        network: 'eip155:8453',
        payer: '0xabc',
        transaction: '0xfeed',
        settlement: 'settled',
      },
      lists: [{ list_key: 'un', version_id: 'v-1', sha256: 'ab'.repeat(32), publication_date: '2026-02-27' }],
      matcher_version: 'screen-test',
      key_id: signer.keyId,
    })
    expect(receipt.receipt_id).toMatch(/^rcpt_[0-9a-f]{32}$/)
  })

  it('verifies with the library, and fails once any field is changed', async () => {
    const jwks = { keys: [signer.publicJwk] }
    const asRecord = (value: unknown) => value as Record<string, unknown>
    expect(await verifyAnswerReceipt(asRecord(receipt), jwks, { body: output })).toMatchObject({ ok: true })
    for (const altered of [
      { ...receipt, operation: 'entity_check' },
      { ...receipt, issued_at: '2026-03-01T12:00:01.000Z' },
      { ...receipt, payment: { ...receipt.payment, transaction: '0xbeef' } },
      { ...receipt, matcher_version: 'screen-other' },
    ]) {
      expect((await verifyAnswerReceipt(asRecord(altered), jwks)).ok).toBe(false)
    }
    const other = await ephemeralSigner()
    expect((await verifyAnswerReceipt(asRecord(receipt), { keys: [other.publicJwk] })).ok).toBe(false)
  })

  it('validation-cli receipts verify: exit 0 for the receipt (JSON or X-Receipt header), 1 once a field is changed', async () => {
    const jwks = path.join(dir, 'jwks.json')
    expect(await cli(['receipts', 'verify', write('ok.json', receipt), '--jwks', jwks])).toBe(0)
    const header = Buffer.from(JSON.stringify(receipt)).toString('base64url')
    expect(await cli(['receipts', 'verify', write('header.txt', header), '--jwks', jwks])).toBe(0)
    const answer = write('answer.json', output)
    expect(
      await cli(['receipts', 'verify', write('ok2.json', receipt), '--jwks', jwks, '--answer', answer]),
    ).toBe(0)
    const otherAnswer = write('answer2.json', { ...output, possible_match: true })
    expect(
      await cli(['receipts', 'verify', write('ok3.json', receipt), '--jwks', jwks, '--answer', otherAnswer]),
    ).toBe(1)
    const altered = { ...receipt, payment: { ...receipt.payment, amount_micros: '1' } }
    expect(await cli(['receipts', 'verify', write('altered.json', altered), '--jwks', jwks])).toBe(1)
    expect(await cli(['receipts', 'verify', write('ok4.json', receipt)])).toBe(2)
  })

  it('the documented openssl/jq recipe verifies the receipt and refuses an altered one', () => {
    const recipe = documentedRecipe()
    const run = (file: unknown) => {
      writeFileSync(path.join(dir, 'receipt.json'), JSON.stringify(file, null, 2))
      return spawnSync('sh', ['-c', recipe], { cwd: dir, encoding: 'utf8' })
    }
    const good = run(receipt)
    expect(good.stderr).toBe('')
    expect(good.stdout).toContain('Signature Verified Successfully')
    expect(good.status).toBe(0)
    const bad = run({ ...receipt, lists: [{ ...receipt.lists![0]!, sha256: 'cd'.repeat(32) }] })
    expect(bad.status).not.toBe(0)
    expect(bad.stdout).not.toContain('Signature Verified Successfully')
  })
})

describe('canonicalReceiptBytes', () => {
  it('writes the JCS the canonicalize package writes, and refuses a lone surrogate as it does', () => {
    const receipts: Record<string, unknown>[] = [
      {
        receipt_id: 'rcpt_1',
        issued_at: '2026-03-01T12:00:00.000Z',
        request_id: 'quote " backslash \\ line\u2028sep \u0007 bell émoji 🙂',
        payment: { method: 'x402', amount_micros: '5000', payer: '0xabc', network: 'eip155:8453' },
        lists: [
          { list_key: 'un', sha256: 'ab'.repeat(32) },
          { list_key: 'eu', é: 'z', Z: 'a' },
        ],
        signature: 'left out',
      },
      { signature: 'only' },
    ]
    for (const receipt of receipts) {
      const { signature: _signature, ...content } = receipt
      expect(canonicalReceiptBytes(receipt).toString('utf8')).toBe(canonicalize(content))
    }
    expect(() => canonicalReceiptBytes({ request_id: 'lone \ud800 surrogate' })).toThrow()
    expect(() => canonicalize({ request_id: 'lone \ud800 surrogate' })).toThrow()
  })

  it('writes RFC 8785 text: keys by UTF-16 code units at every level, strings escaped as JSON, no signature', () => {
    const receipt = {
      signature: 'left out',
      request_id: 'q"\\',
      payment: { method: 'account', amount_micros: '5000' },
      lists: [{ list_key: 'eu', é: 'z', Z: 'a' }],
      issued_at: '2026-03-01T12:00:00.000Z',
    }
    expect(canonicalReceiptBytes(receipt).toString('utf8')).toBe(
      '{"issued_at":"2026-03-01T12:00:00.000Z","lists":[{"Z":"a","list_key":"eu","é":"z"}],' +
        '"payment":{"amount_micros":"5000","method":"account"},"request_id":"q\\"\\\\"}',
    )
  })
})

describe('jcsSha256', () => {
  /** The hash as first defined: every value copied with lone surrogates replaced, then the canonicalize package. */
  function reference(value: unknown): string {
    const wellFormed = (item: unknown): unknown => {
      if (typeof item === 'string') return item.toWellFormed()
      if (Array.isArray(item)) return item.map(wellFormed)
      if (item !== null && typeof item === 'object') {
        return Object.fromEntries(
          Object.entries(item).map(([key, inner]) => [key.toWellFormed(), wellFormed(inner)]),
        )
      }
      return item
    }
    const text = canonicalize(wellFormed(value === undefined ? null : value)) ?? 'null'
    return createHash('sha256').update(text, 'utf8').digest('hex')
  }

  it('hashes every kind of value as it always did: plain, lone surrogates, objects that are not plain', () => {
    class Answer {
      name: string
      constructor(name: string) {
        this.name = name
      }
    }
    const values: unknown[] = [
      undefined,
      null,
      { name: 'Acme', matches: [{ score: 0.9, aliases: ['Аcme', 'ACME'] }], n: 1e21 },
      { name: 'lone \ud800 surrogate', 'key \udc00': ['x\ud83d'] },
      { at: new Date(0), nested: { answer: new Answer('x') } },
      [1, 'two', { three: [3] }],
      Object.assign(Object.create(null), { b: 1, a: 2 }),
      // Key order by UTF-16 code units (integer-like keys too), numbers as ECMAScript writes them.
      { z: 1, é: 2, '😀': 3, Z: 4, '10': 5, '2': 6, '-1': 7, a: 8, '': 9 },
      [-0, 1e21, 1e-7, 0.1 + 0.2, 5e-324, 2 ** 53, 123456789012345680000],
      { skipped: undefined, kept: [1, undefined, 3], empty: {}, none: [], text: 'x\u2028y"\\\n\t' },
      { at: { toJSON: () => ({ b: 1, a: [2, { d: 4, c: 3 }] }) } },
      {
        result: 'possible_match',
        matches: Array.from({ length: 6 }, (_, i) => ({
          entry_id: String(10_000 + i),
          match_score: 0.8 + i / 100,
          score_breakdown: {
            parts: [{ query: 'lukashenka', listed: 'lukashenko', similarity: 0.93, method: 'edit_distance' }],
            evidence: [],
            threshold: 0.78,
          },
        })),
        coverage: { status: 'complete', lists_checked: ['ofac_sdn', 'eu', 'un'], stale: false },
      },
    ]
    for (const value of values) expect(jcsSha256(value)).toBe(reference(value))
  })

  it('hashes a non-finite number as null, as the answer’s JSON body carries it', () => {
    expect(jcsSha256({ score: Number.NaN, top: Number.POSITIVE_INFINITY })).toBe(
      reference({ score: null, top: null }),
    )
  })
})

describe('newReceiptId', () => {
  it('gives 128 random bits in hex, never the same id twice across refills of its pool', () => {
    const ids = Array.from({ length: 2000 }, () => newReceiptId())
    for (const id of ids) expect(id).toMatch(/^rcpt_[0-9a-f]{32}$/)
    expect(new Set(ids).size).toBe(ids.length)
  })
})
