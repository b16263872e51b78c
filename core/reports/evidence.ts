import { createHash, createPrivateKey, createPublicKey } from 'node:crypto'
import canonicalize from 'canonicalize'
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

/** The hash and signature every report carries (spec: evidence.report_hash, hash_algorithm). */
export interface ReportEvidence {
  /** Hex SHA-256 of the canonical JSON (RFC 8785 JCS) of the report without its `evidence` member. */
  report_hash: string
  hash_algorithm: 'SHA-256'
  canonicalization: 'RFC 8785 (JCS)'
  /** Detached compact JWS (`header..signature`, RFC 7515 appendix F) over the same canonical bytes. */
  signature: string
  signature_algorithm: 'EdDSA (Ed25519)'
  /** `kid` of the signing key in the service's JWKS. */
  key_id: string
  /** Where the public key is published. */
  jwks_url: string
}

/** The canonical bytes of a report: JCS of everything but `evidence`. */
export function canonicalReportBytes(report: Record<string, unknown>): Buffer {
  const { evidence: _evidence, ...content } = report
  const text = canonicalize(content)
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
  /** A detached compact JWS over `payload`. */
  sign(payload: Uint8Array): Promise<string>
}

async function signerFrom(privateKey: CryptoKey, publicKey: CryptoKey): Promise<ReportSigner> {
  const jwk = await exportJWK(publicKey)
  const keyId = await calculateJwkThumbprint(jwk)
  const publicJwk: JWK = { ...jwk, kid: keyId, alg: 'EdDSA', use: 'sig' }
  return {
    keyId,
    publicJwk,
    async sign(payload) {
      const jws = await new CompactSign(payload)
        .setProtectedHeader({ alg: 'EdDSA', kid: keyId })
        .sign(privateKey)
      const [header, , signature] = jws.split('.')
      return `${header}..${signature}`
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

/** Hash and sign a report's content; the returned evidence is what the report carries. */
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
    signature: await signer.sign(bytes),
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

/**
 * Checks a report offline: recomputes the JCS SHA-256 of its content and compares it with
 * evidence.report_hash, then verifies the detached JWS over the same bytes with the key from the
 * JWKS whose kid the signature names. Any changed field breaks both.
 */
export async function verifyReport(
  report: Record<string, unknown>,
  jwks: { keys: JWK[] },
): Promise<VerificationOutcome> {
  const problems: string[] = []
  const evidence = (report.evidence ?? {}) as Partial<ReportEvidence>
  const bytes = canonicalReportBytes(report)
  const computed = sha256Hex(bytes)
  const hashMatches = evidence.report_hash === computed
  if (!hashMatches) problems.push('report_hash does not match the report content (the report was altered)')
  let signatureValid = false
  const parts = (evidence.signature ?? '').split('.')
  if (parts.length !== 3 || parts[1] !== '') {
    problems.push('evidence.signature is not a detached compact JWS')
  } else {
    try {
      const header = JSON.parse(Buffer.from(parts[0] ?? '', 'base64url').toString('utf8')) as {
        kid?: string
        alg?: string
      }
      const jwk = jwks.keys.find((key) => key.kid === header.kid)
      if (!jwk) problems.push(`no key ${header.kid} in the JWKS`)
      else if (header.alg !== 'EdDSA') problems.push(`unexpected algorithm ${header.alg}`)
      else {
        const key = await importJWK(jwk, 'EdDSA')
        await compactVerify(`${parts[0]}.${Buffer.from(bytes).toString('base64url')}.${parts[2]}`, key)
        signatureValid = true
      }
    } catch (error) {
      problems.push(`signature does not verify: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return {
    ok: hashMatches && signatureValid,
    hash_matches: hashMatches,
    signature_valid: signatureValid,
    computed_hash: computed,
    problems,
  }
}
