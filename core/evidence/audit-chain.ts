import { hash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { sha256Hex } from '../reports/evidence.ts'
import { canonicalReceiptBytes } from './answer-receipt.ts'

/** The prev_hash of a chain's first row. */
export const GENESIS_HASH = '0'.repeat(64)

/** The chained fields of an audit row, in the form they are hashed (see auditRowHash). */
export interface ChainedFields {
  chain: string
  seq: bigint
  key_id: string | null
  at: Date
  kind: string
  action: string
  outcome: string
  subject_sha256: string | null
  paid_with: string | null
  amount_micros: bigint | null
  receipt_id: string | null
  receipt: unknown
  detail: unknown
  prev_hash: string
  /**
   * Not a field: the receipt's content SHA-256 when the caller already has it (computed while
   * signing), so appending does not canonicalize the receipt a second time.
   */
  receipt_content_sha256?: string
}

/** The names of the chained fields, in the order verification reports them. */
export const CHAINED_FIELDS: readonly (keyof ChainedFields)[] = [
  'chain',
  'seq',
  'key_id',
  'at',
  'kind',
  'action',
  'outcome',
  'subject_sha256',
  'paid_with',
  'amount_micros',
  'receipt_id',
  'receipt',
  'detail',
  'prev_hash',
]

/** A field's value as hashed: bigints and dates as strings, absent as null. */
function hashedValue(field: keyof ChainedFields, row: ChainedFields): unknown {
  const value = row[field]
  if (field === 'receipt' && value !== null && typeof value === 'object') {
    // The receipt as its signature sees it: the SHA-256 of its canonical content, and the signature.
    const receipt = value as Record<string, unknown>
    return {
      content_sha256: row.receipt_content_sha256 ?? sha256Hex(canonicalReceiptBytes(receipt)),
      signature: receipt.signature ?? null,
    }
  }
  if (value === undefined || value === null) return null
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof Date) return value.toISOString()
  return value
}

/** One-shot hex SHA-256 of UTF-8 text (crypto.hash: no Hash object per field, 15 of them per row). */
const sha256 = (text: string) => hash('sha256', text, 'hex')

/**
 * The JCS of a field's value; a well-formed string or null is its JSON text, as JCS writes it,
 * without the walk (a string with a lone surrogate goes to canonicalize, which refuses it, as
 * before).
 */
function canonicalValue(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'string' && value.isWellFormed()) return JSON.stringify(value)
  return canonicalize(value) ?? 'null'
}

/** Hex SHA-256 of the JCS of each chained field's value. */
function fieldHashes(row: ChainedFields): Record<string, string> {
  const hashes: Record<string, string> = {}
  for (const field of CHAINED_FIELDS) hashes[field] = sha256(canonicalValue(hashedValue(field, row)))
  return hashes
}

/**
 * A row's hash and its field digests, in one pass. The hash is the hex SHA-256 of the JCS
 * (RFC 8785) of an object holding, for every chained field, the SHA-256 of the JCS of its value:
 * changing any field changes it. It covers prev_hash, so every row vouches for the whole chain
 * before it, and subject_sha256, never the plaintext subject, so erasing the subject leaves the
 * chain intact. The digests (the first 12 hex characters of each field's hash) are stored beside
 * the row: they protect nothing (the hash does), they let verification name the changed field.
 */
export function sealAuditRow(row: ChainedFields): { hash: string; digests: Record<string, string> } {
  const hashes = fieldHashes(row)
  const digests: Record<string, string> = {}
  for (const field of CHAINED_FIELDS) digests[field] = hashes[field]!.slice(0, 12)
  return { hash: sha256(canonicalize(hashes) ?? ''), digests }
}

/** A row's hash (sealAuditRow). */
export function auditRowHash(row: ChainedFields): string {
  return sealAuditRow(row).hash
}

/**
 * The subject as hashed and filtered: Unicode NFKC, trimmed, inner whitespace collapsed, lower
 * case; so `ACME  B.V.` and `acme b.v.` are the same subject.
 */
export function normaliseSubject(subject: string): string {
  return subject.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase()
}

/** Hex SHA-256 of the normalised subject: what the chain holds instead of the subject itself. */
export function subjectSha256(subject: string): string {
  return sha256(normaliseSubject(subject))
}

/** The input fields that name who or what a call was about, in order of preference. */
const SUBJECT_FIELDS = [
  'name',
  'company_name',
  'legal_name',
  'entity_name',
  'query',
  'wallet',
  'address',
  'vat_number',
  'vat',
  'kvk_number',
  'enterprise_number',
  'registration_number',
  'iban',
  'domain',
  'email',
  'value',
] as const

/** The subject of a call: the first subject field of its input that holds a string, if any. */
export function subjectOf(input: unknown): string | undefined {
  if (input === null || typeof input !== 'object') return undefined
  const record = input as Record<string, unknown>
  for (const field of SUBJECT_FIELDS) {
    const value = record[field]
    if (typeof value === 'string' && value.trim() !== '') return value.slice(0, 500)
  }
  return undefined
}
