import { randomFillSync } from 'node:crypto'
import { canonify } from '@truestamp/canonify'
import canonicalize from 'canonicalize'
import { compactVerify, importJWK } from 'jose'
import type { Caller, Quality } from '../context.ts'
import { formatUsd } from '../money.ts'
import type { Receipt } from '../payments/charge.ts'
import { type ReportSigner, sha256Hex, type TrustedKeys } from '../reports/evidence.ts'
import type { LoadedList } from '../sanctions/screening-index.ts'

/** How a paid answer was paid, as its receipt states it. */
export interface ReceiptPayment {
  /** `account`: debited from a prepaid API-key balance; `x402`: a settled (or held) on-chain payment. */
  method: 'account' | 'x402'
  /** Integer micro-USDC, as a decimal string (JSON numbers lose precision past 2^53). */
  amount_micros: string
  amount_usd: string
  /** The API key debited (account) or the key the call was made with. */
  key_id?: string
  /** x402: the CAIP-2 network, payer and transaction hash (empty while settlement is pending). */
  network?: string
  payer?: string
  transaction?: string
  /** x402: `settled`, or `pending` when it was verified and is held for the settlement worker. */
  settlement?: 'settled' | 'pending'
}

/** One sanctions list version a screening answer read. */
export interface ReceiptList {
  list: string
  list_key: string
  version_id: string
  publication_date: string | null
  /** SHA-256 of the list file as downloaded: the exact bytes the version was built from. */
  sha256: string
}

/**
 * The receipt of one paid answer: what was asked (request_hash), what was answered
 * (response_hash), what it cost and how it was paid, which list versions and matcher it used, and
 * when; signed by the service's report key (a detached JWS over the canonical bytes of every
 * field but `signature`).
 */
export interface AnswerReceipt {
  receipt_id: string
  issued_at: string
  operation: string
  quality: Quality
  request_id: string
  /** Hex SHA-256 of the JCS (RFC 8785) of the operation's input as received. */
  request_hash: string
  /** Hex SHA-256 of the JCS of the answer's JSON body (the MCP tool result's structuredContent). */
  response_hash: string
  hash_algorithm: 'SHA-256'
  canonicalization: 'RFC 8785 (JCS)'
  payment: ReceiptPayment
  /** The sanctions list versions held when the answer was produced (screening operations only). */
  lists?: ReceiptList[]
  /** The screening matcher's version (screening operations only). */
  matcher_version?: string
  signature_algorithm: 'EdDSA (Ed25519)'
  /** kid of the signing key in the service's JWKS (the same key signs entity reports). */
  key_id: string
  /** Where the service publishes the key; informative only, a verifier uses a JWKS it chose. */
  jwks_url: string
  /** Detached compact JWS (`header..signature`) over JCS of this receipt without `signature`. */
  signature: string
}

/** The canonical bytes a receipt's signature covers: JCS of every field but `signature`. */
export function canonicalReceiptBytes(receipt: Record<string, unknown>): Buffer {
  const { signature: _signature, ...content } = receipt
  const text = canonicalize(content)
  if (text === undefined) throw new Error('receipt cannot be canonicalized')
  return Buffer.from(text, 'utf8')
}

/**
 * The value with every lone surrogate (in strings and keys) replaced by U+FFFD, as UTF-8 stores
 * it: JCS (RFC 8785) refuses lone surrogates, and a request may carry one (in a field the answer
 * then refuses, such as one invalid lead of a batch).
 */
function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed()
  if (Array.isArray(value)) return value.map(wellFormed)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key.toWellFormed(), wellFormed(item)]),
    )
  }
  return value
}

/**
 * Whether wellFormed would change nothing JCS sees: every string and key well formed, every
 * object a plain object or array (wellFormed copies any other object's own fields into a plain
 * one). Answers and inputs nearly always are, and are then canonicalized as they are, uncopied.
 */
function alreadyWellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed()
  if (value === null || typeof value !== 'object') return true
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false
    for (const item of value) if (!alreadyWellFormed(item)) return false
    return true
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return false
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    if (!key.isWellFormed() || !alreadyWellFormed((value as Record<string, unknown>)[key])) return false
  }
  return true
}

/**
 * Hex SHA-256 of the JCS of a JSON value (`null` for an answer without a body).
 *
 * Why `canonify` here and `canonicalize` elsewhere: both write RFC 8785's text the same way (keys
 * sorted by UTF-16 code units, numbers and strings as ECMAScript's JSON.stringify writes them; a
 * test compares them over answers and edge cases), but `canonicalize` also scans every string
 * character by character in JavaScript for lone surrogates, half its time on an answer of a few
 * KB. Here every string was already checked by the engine's own `isWellFormed` (alreadyWellFormed)
 * or made well formed, so that scan is spent twice. A non-finite number, which the answer's JSON
 * body carries as null, is hashed as null too (the receipt then matches the bytes sent).
 */
export function jcsSha256(value: unknown): string {
  const json = value === undefined ? null : value
  return sha256Hex(Buffer.from(canonify(alreadyWellFormed(json) ? json : wellFormed(json)) ?? 'null', 'utf8'))
}

/** Random bytes for receipt ids, drawn from the CSPRNG 4 KB at a time (one call per 256 ids, not one each). */
const idPool = Buffer.alloc(4096)
let idPoolOffset = idPool.length

/** A new receipt id: 128 random bits, so the id alone cannot be guessed. */
export function newReceiptId(): string {
  if (idPoolOffset + 16 > idPool.length) {
    randomFillSync(idPool)
    idPoolOffset = 0
  }
  const id = `rcpt_${idPool.toString('hex', idPoolOffset, idPoolOffset + 16)}`
  idPoolOffset += 16
  return id
}

/** What an answered, paid call gives the receipt. */
export interface ReceiptFacts {
  operation: string
  quality: Quality
  requestId: string
  input: unknown
  output: unknown
  payer: Caller
  charged: Receipt
  issuedAt: Date
  /** Screening operations: the list versions held and the matcher version. */
  screening?: { lists: readonly LoadedList[]; matcherVersion: string }
}

/** The payment part of a receipt: the key debit, or the x402 network, payer and transaction. */
function paymentOf(payer: Caller, charged: Receipt): ReceiptPayment {
  const amount = { amount_micros: charged.amount.toString(), amount_usd: formatUsd(charged.amount) }
  const keyId = payer.kind === 'key' ? { key_id: payer.keyId } : {}
  const settlement = charged.settlement
  if (charged.paidWith !== 'x402' || !settlement) return { method: 'account', ...amount, ...keyId }
  const response = settlement.response
  return {
    method: 'x402',
    ...amount,
    ...keyId,
    network: response.network || (payer.kind === 'x402' ? payer.network : ''),
    payer: response.payer || (payer.kind === 'x402' ? payer.payer : ''),
    transaction: response.transaction,
    settlement: settlement.state,
  }
}

/**
 * Builds and signs the receipt of a paid answer, synchronously (Node's native Ed25519): the hashes
 * of request and answer, the payment, and for a screening the list versions with their SHA-256
 * and the matcher version.
 */
export function signAnswerReceipt(facts: ReceiptFacts, signer: ReportSigner, jwksUrl: string): AnswerReceipt {
  return signAnswerReceiptWithDigest(facts, signer, jwksUrl).receipt
}

/** signAnswerReceipt, with the SHA-256 of the receipt's canonical content (what the audit row chains). */
export function signAnswerReceiptWithDigest(
  facts: ReceiptFacts,
  signer: ReportSigner,
  jwksUrl: string,
): { receipt: AnswerReceipt; contentSha256: string } {
  const content: Omit<AnswerReceipt, 'signature'> = {
    receipt_id: newReceiptId(),
    issued_at: facts.issuedAt.toISOString(),
    operation: facts.operation,
    quality: facts.quality,
    request_id: facts.requestId,
    request_hash: jcsSha256(facts.input),
    response_hash: jcsSha256(facts.output),
    hash_algorithm: 'SHA-256',
    canonicalization: 'RFC 8785 (JCS)',
    payment: paymentOf(facts.payer, facts.charged),
    ...(facts.screening
      ? {
          lists: facts.screening.lists.map((list) => ({
            list: list.list,
            list_key: list.list_key,
            version_id: list.version_id,
            publication_date: list.publication_date,
            sha256: list.sha256,
          })),
          matcher_version: facts.screening.matcherVersion,
        }
      : {}),
    signature_algorithm: 'EdDSA (Ed25519)',
    key_id: signer.keyId,
    jwks_url: jwksUrl,
  }
  const bytes = canonicalReceiptBytes(content as unknown as Record<string, unknown>)
  return { receipt: { ...content, signature: signer.signSync(bytes) }, contentSha256: sha256Hex(bytes) }
}

export interface ReceiptVerification {
  ok: boolean
  signature_valid: boolean
  /** Set when the answer was given: whether its JCS SHA-256 equals response_hash. */
  response_matches?: boolean
  problems: string[]
}

/**
 * Checks a receipt offline against keys the verifier chose (never the URL the receipt names):
 * the detached JWS over JCS of every field but `signature`, with the key whose kid the signed
 * header names, and that key_id is that kid. Any changed field breaks the signature. Given the
 * answer's JSON too, also checks that response_hash is its JCS SHA-256.
 */
export async function verifyAnswerReceipt(
  receipt: Record<string, unknown>,
  jwks: TrustedKeys,
  answer?: { body: unknown },
): Promise<ReceiptVerification> {
  const problems: string[] = []
  let signatureValid = false
  const parts = typeof receipt.signature === 'string' ? receipt.signature.split('.') : []
  if (parts.length !== 3 || parts[1] !== '') {
    problems.push('signature is not a detached compact JWS')
  } else {
    try {
      const header = JSON.parse(Buffer.from(parts[0] ?? '', 'base64url').toString('utf8')) as {
        kid?: unknown
        alg?: unknown
      }
      const jwk = typeof header.kid === 'string' ? jwks.keys.find((key) => key.kid === header.kid) : undefined
      if (header.alg !== 'EdDSA')
        problems.push(`unexpected signature algorithm ${JSON.stringify(header.alg)}`)
      else if (typeof header.kid !== 'string') problems.push('the signature names no key (no kid)')
      else if (!jwk) problems.push(`the signing key ${header.kid} is not in the trusted JWKS`)
      else {
        const bytes = canonicalReceiptBytes(receipt)
        const key = await importJWK(jwk, 'EdDSA')
        try {
          await compactVerify(`${parts[0]}.${bytes.toString('base64url')}.${parts[2]}`, key, {
            algorithms: ['EdDSA'],
          })
          signatureValid = true
        } catch {
          problems.push(
            'the signature does not verify: a field of the receipt was changed, or it was not signed by this key',
          )
        }
      }
      if (receipt.key_id !== header.kid) {
        problems.push(
          `key_id ${JSON.stringify(receipt.key_id)} is not the signing key ${JSON.stringify(header.kid)}`,
        )
      }
    } catch (error) {
      problems.push(`signature cannot be read: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  let responseMatches: boolean | undefined
  if (answer) {
    responseMatches = receipt.response_hash === jcsSha256(answer.body)
    if (!responseMatches)
      problems.push('response_hash does not match the answer given (the answer was altered)')
  }
  return {
    ok: problems.length === 0 && signatureValid,
    signature_valid: signatureValid,
    ...(responseMatches === undefined ? {} : { response_matches: responseMatches }),
    problems,
  }
}
