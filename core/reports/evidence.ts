import {
  createHash,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  KeyObject,
  sign as signBytes,
} from 'node:crypto'
import {
  CompactSign,
  type CryptoKey,
  calculateJwkThumbprint,
  compactVerify,
  exportJWK,
  generateKeyPair,
  importJWK,
  importPKCS8,
  importSPKI,
  type JWK,
} from 'jose'
import { canonicalJson } from '../canonical-json.ts'

/** The hash and signature every report carries (spec: evidence.report_hash, hash_algorithm). */
export interface ReportEvidence {
  /** Hex SHA-256 of the canonical JSON (RFC 8785 JCS) of the report without its `evidence` member. */
  report_hash: string
  hash_algorithm: 'SHA-256'
  canonicalization: 'RFC 8785 (JCS)'
  /** Detached compact JWS (`header..signature`, RFC 7515 appendix F) over the same canonical bytes. */
  signature: string
  signature_algorithm: 'EdDSA (Ed25519)'
  /** `kid` of the signing key in the service's JWKS; equal to the `kid` of the signed JWS header. */
  key_id: string
  /**
   * Where the service publishes its public key; equal to the `jku` of the signed JWS header. For
   * information only: a verifier takes the keys from a JWKS it chose, never from this URL (whoever
   * forges a report writes their own URL here).
   */
  jwks_url: string
}

/** The values a verifier accepts in the descriptive evidence fields (anything else is refused). */
const EXPECTED_EVIDENCE = {
  hash_algorithm: 'SHA-256',
  canonicalization: 'RFC 8785 (JCS)',
  signature_algorithm: 'EdDSA (Ed25519)',
} as const

/** The canonical bytes of a report: JCS of everything but `evidence`. */
export function canonicalReportBytes(report: Record<string, unknown>): Buffer {
  const { evidence: _evidence, ...content } = report
  const text = canonicalJson(content)
  if (text === undefined) throw new Error('report cannot be canonicalized')
  return Buffer.from(text, 'utf8')
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** The service's report signing key: signs canonical bytes, publishes its public JWK. */
export interface ReportSigner {
  readonly keyId: string
  /** Public key as a JWK (`kty: OKP, crv: Ed25519, x, kid, alg: EdDSA, use: sig`). */
  readonly publicJwk: JWK
  /**
   * A detached compact JWS over `payload`; its protected header (alg, kid and `jku` when given) is
   * signed with it.
   */
  sign(payload: Uint8Array, header?: { jku?: string }): Promise<string>
  /**
   * A 32-byte HMAC key derived from the signing key (HKDF-SHA256, its own label): report share
   * links are MACed with it, so they survive restarts exactly as long as the signing key does, and
   * nothing else can be derived from one.
   */
  readonly shareKey: Uint8Array
  /**
   * The same detached compact JWS, computed synchronously with Node's native Ed25519 (a few tens
   * of microseconds): for signatures on the request path, such as the receipt of every paid answer.
   */
  signSync(payload: Uint8Array, header?: { jku?: string }): string
}

async function signerFrom(privateKey: CryptoKey, publicKey: CryptoKey): Promise<ReportSigner> {
  const jwk = await exportJWK(publicKey)
  const keyId = await calculateJwkThumbprint(jwk)
  const publicJwk: JWK = { ...jwk, kid: keyId, alg: 'EdDSA', use: 'sig' }
  const secret = Buffer.from((await exportJWK(privateKey)).d ?? '', 'base64url')
  const shareKey = new Uint8Array(hkdfSync('sha256', secret, new Uint8Array(0), 'report-share-links/v1', 32))
  const nativeKey = KeyObject.from(privateKey)
  const headers = new Map<string, string>()
  const protectedHeaderOf = (jku: string | undefined): string => {
    let header = headers.get(jku ?? '')
    if (header === undefined) {
      header = Buffer.from(
        JSON.stringify({ alg: 'EdDSA', kid: keyId, ...(jku ? { jku } : {}) }),
        'utf8',
      ).toString('base64url')
      headers.set(jku ?? '', header)
    }
    return header
  }
  return {
    keyId,
    publicJwk,
    shareKey,
    signSync(payload, extra = {}) {
      const header = protectedHeaderOf(extra.jku)
      const input = Buffer.from(`${header}.${Buffer.from(payload).toString('base64url')}`, 'ascii')
      return `${header}..${signBytes(null, input, nativeKey).toString('base64url')}`
    },
    async sign(payload, extra = {}) {
      const jws = await new CompactSign(payload)
        .setProtectedHeader({ alg: 'EdDSA', kid: keyId, ...(extra.jku ? { jku: extra.jku } : {}) })
        .sign(privateKey)
      const [protectedHeader, , signature] = jws.split('.')
      return `${protectedHeader}..${signature}`
    },
  }
}

/**
 * The signer from an Ed25519 private key in PKCS#8 PEM (`openssl genpkey -algorithm ed25519`).
 * The public key is derived from it; its JWK thumbprint (RFC 7638) is the kid.
 */
export async function signerFromPem(pem: string): Promise<ReportSigner> {
  const privateKey = await importPKCS8(pem, 'EdDSA', { extractable: true })
  const publicPem = createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'pem' }).toString()
  const publicKey = await importSPKI(publicPem, 'EdDSA', { extractable: true })
  return signerFrom(privateKey, publicKey)
}

/** A fresh key held in memory only (no REPORT_SIGNING_KEY configured): start-up warns. */
export async function ephemeralSigner(): Promise<ReportSigner> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })
  return signerFrom(privateKey, publicKey)
}

/**
 * Hash and sign a report's content; the returned evidence is what the report carries. The key id
 * and the JWKS URL also go into the signed JWS header, so every evidence field is either covered
 * by the signature or a fixed value the verifier checks.
 */
export async function buildEvidence(
  report: Record<string, unknown>,
  signer: ReportSigner,
  jwksUrl: string,
): Promise<ReportEvidence> {
  const bytes = canonicalReportBytes(report)
  return {
    report_hash: sha256Hex(bytes),
    hash_algorithm: 'SHA-256',
    canonicalization: 'RFC 8785 (JCS)',
    signature: await signer.sign(bytes, { jku: jwksUrl }),
    signature_algorithm: 'EdDSA (Ed25519)',
    key_id: signer.keyId,
    jwks_url: jwksUrl,
  }
}

export interface VerificationOutcome {
  ok: boolean
  hash_matches: boolean
  signature_valid: boolean
  /** The hash recomputed from the report's content. */
  computed_hash: string
  problems: string[]
}

/** A public key set the verifier chose: `{ keys: [JWK, ...] }` with a `kid` on each key. */
export interface TrustedKeys {
  keys: JWK[]
}

/**
 * Checks a report offline against keys the verifier chose (the service's JWKS saved or fetched
 * from the service it trusts, never a URL the report names): recomputes the JCS SHA-256 of its
 * content and compares it with evidence.report_hash, verifies the detached JWS over the same bytes
 * with the key whose kid the signed header names, and checks that every other evidence field is
 * covered: key_id and jwks_url equal the signed header's kid and jku, the algorithm names are the
 * fixed ones. Any changed field fails.
 */
export async function verifyReport(
  report: Record<string, unknown>,
  jwks: TrustedKeys,
): Promise<VerificationOutcome> {
  const problems: string[] = []
  const evidence = (
    report.evidence !== null && typeof report.evidence === 'object' ? report.evidence : {}
  ) as Partial<Record<keyof ReportEvidence, unknown>>
  const bytes = canonicalReportBytes(report)
  const computed = sha256Hex(bytes)
  const hashMatches = evidence.report_hash === computed
  if (!hashMatches) problems.push('report_hash does not match the report content (the report was altered)')
  for (const [field, expected] of Object.entries(EXPECTED_EVIDENCE)) {
    const actual = evidence[field as keyof typeof EXPECTED_EVIDENCE]
    if (actual !== expected)
      problems.push(`evidence.${field} is ${JSON.stringify(actual)}, expected "${expected}"`)
  }
  let signatureValid = false
  const parts = typeof evidence.signature === 'string' ? evidence.signature.split('.') : []
  if (parts.length !== 3 || parts[1] !== '') {
    problems.push('evidence.signature is not a detached compact JWS')
  } else {
    try {
      const header = JSON.parse(Buffer.from(parts[0] ?? '', 'base64url').toString('utf8')) as {
        kid?: unknown
        alg?: unknown
        jku?: unknown
      }
      const jwk = typeof header.kid === 'string' ? jwks.keys.find((key) => key.kid === header.kid) : undefined
      if (header.alg !== 'EdDSA')
        problems.push(`unexpected signature algorithm ${JSON.stringify(header.alg)}`)
      else if (typeof header.kid !== 'string') problems.push('the signature names no key (no kid)')
      else if (!jwk) {
        problems.push(
          `the signing key ${header.kid} is not in the trusted JWKS: the report was not signed by the service whose keys were given`,
        )
      } else {
        const key = await importJWK(jwk, 'EdDSA')
        await compactVerify(`${parts[0]}.${Buffer.from(bytes).toString('base64url')}.${parts[2]}`, key, {
          algorithms: ['EdDSA'],
        })
        signatureValid = true
      }
      // The descriptive fields must say what the signed header says.
      if (evidence.key_id !== header.kid) {
        problems.push(
          `evidence.key_id ${JSON.stringify(evidence.key_id)} is not the signing key ${JSON.stringify(header.kid)}`,
        )
      }
      if (header.jku !== undefined && evidence.jwks_url !== header.jku) {
        problems.push(
          `evidence.jwks_url ${JSON.stringify(evidence.jwks_url)} is not the signed one ${JSON.stringify(header.jku)}`,
        )
      }
    } catch (error) {
      problems.push(`signature does not verify: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return {
    ok: problems.length === 0 && hashMatches && signatureValid,
    hash_matches: hashMatches,
    signature_valid: signatureValid,
    computed_hash: computed,
    problems,
  }
}

/**
 * The trusted keys from a pinned key file: a JWKS (`{"keys": [...]}`) or a map from kid to a
 * public key (a JWK object, or an SPKI PEM string such as `openssl pkey -pubout` prints). The
 * map's kid wins over a kid inside the JWK. Private parts (`d`) are refused: a key file that
 * holds a private key is a mistake to point out, not to use.
 */
export function trustedKeysFrom(document: unknown): TrustedKeys {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new Error('a key file is a JWKS ({"keys": [...]}) or an object from kid to public key')
  }
  const record = document as Record<string, unknown>
  const keys: JWK[] = Array.isArray(record.keys)
    ? (record.keys as unknown[]).map((key, index) => jwkOf(key, undefined, `keys[${index}]`))
    : Object.entries(record).map(([kid, key]) => jwkOf(key, kid, kid))
  if (keys.length === 0) throw new Error('the key file holds no key')
  return { keys }
}

function jwkOf(value: unknown, kid: string | undefined, where: string): JWK {
  let jwk: JWK
  if (typeof value === 'string') {
    try {
      jwk = createPublicKey(value).export({ format: 'jwk' }) as JWK
    } catch {
      throw new Error(`${where}: not a public key PEM`)
    }
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    jwk = { ...(value as JWK) }
  } else {
    throw new Error(`${where}: not a JWK or a PEM public key`)
  }
  if ('d' in jwk) throw new Error(`${where}: holds a private key; give the public key only`)
  if (kid !== undefined) jwk.kid = kid
  if (typeof jwk.kid !== 'string') throw new Error(`${where}: the key has no kid`)
  return jwk
}
