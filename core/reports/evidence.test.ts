import { createPublicKey } from 'node:crypto'
import { exportJWK, generateKeyPair } from 'jose'
import { describe, expect, it } from 'vitest'
import {
  buildEvidence,
  canonicalReportBytes,
  ephemeralSigner,
  trustedKeysFrom,
  verifyReport,
} from './evidence.ts'

const CONTENT = {
  report_id: '6f1c3c1e-2f4b-4c55-9d8e-0a1b2c3d4e5f',
  check_id: 'c-1',
  created_at: '2026-11-25T09:00:00.000Z',
  entity: { entity_name: 'Bäckerei Müller & Söhne “Ost”', country: 'NL', kvk_number: '68750110' },
  sanctions: {
    status: 'ok',
    result: 'no_match',
    threshold: 0.6,
    lists: [{ list: 'ofac_sdn', date: '2026-11-20' }],
  },
  pep: { status: 'ok', exposure: 'none', matches: [] },
  risk: { trust_score: 72, trust_level: 'high', confidence: 0.85, sources_checked: 5 },
  findings: [
    { factor: 'domain_age', source: 'rdap', severity: 'low', evidence: 'registered 40 days ago <b>' },
  ],
  correlations: { status: 'ok', scope_note: 'own reports only', links: [] },
  sources: [{ source: 'kvk', status: 'ok', fetched_at: '2026-11-25T08:59:59.000Z' }],
}

/** Every leaf of a JSON value with a path to it. */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [path]
  const entries = Array.isArray(value)
    ? value.map((item, index) => [index, item] as const)
    : Object.entries(value)
  return entries.flatMap(([key, item]) => leaves(item, [...path, key]))
}

function altered(report: Record<string, unknown>, path: (string | number)[]): Record<string, unknown> {
  const copy = structuredClone(report)
  let node = copy as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  const last = path[path.length - 1] as string | number
  const value = node[last]
  node[last] = typeof value === 'number' ? value + 1 : typeof value === 'string' ? `${value}x` : !value
  return copy
}

describe('report evidence (JCS SHA-256 and a detached Ed25519 JWS)', () => {
  it('canonical bytes ignore key order and the evidence member (RFC 8785)', () => {
    const reordered = Object.fromEntries(Object.entries(CONTENT).reverse())
    expect(canonicalReportBytes({ ...reordered, evidence: { any: 1 } }).toString()).toBe(
      canonicalReportBytes(CONTENT).toString(),
    )
    expect(canonicalReportBytes({ b: 1, a: [1.0, 'é'] }).toString()).toBe('{"a":[1,"é"],"b":1}')
  })

  it('detects a change of any single field, and a report signed by another key', async () => {
    const signer = await ephemeralSigner()
    const report = { ...CONTENT, evidence: await buildEvidence(CONTENT, signer, 'http://127.0.0.1/jwks') }
    const jwks = { keys: [signer.publicJwk] }
    expect(await verifyReport(report, jwks)).toMatchObject({ ok: true })
    const paths = leaves(CONTENT)
    expect(paths.length).toBeGreaterThan(25)
    for (const path of paths) {
      const outcome = await verifyReport(altered(report, path), jwks)
      expect(outcome.ok, path.join('.')).toBe(false)
      expect(outcome.signature_valid, path.join('.')).toBe(false)
    }
    // Removing a field or adding one is a change too.
    const { check_id: _dropped, ...without } = report
    expect((await verifyReport(without, jwks)).ok).toBe(false)
    expect((await verifyReport({ ...report, extra: true }, jwks)).ok).toBe(false)
    // The right content signed by a key not in the JWKS does not verify.
    const other = await ephemeralSigner()
    const foreign = { ...CONTENT, evidence: await buildEvidence(CONTENT, other, 'http://127.0.0.1/jwks') }
    expect(await verifyReport(foreign, jwks)).toMatchObject({
      ok: false,
      hash_matches: true,
      signature_valid: false,
    })
  })

  it('signs kid and jku in the JWS header: evidence.key_id, jwks_url and the algorithm names are checked', async () => {
    const signer = await ephemeralSigner()
    const report = { ...CONTENT, evidence: await buildEvidence(CONTENT, signer, 'https://svc.example/jwks') }
    const header = JSON.parse(Buffer.from(report.evidence.signature.split('.')[0]!, 'base64url').toString())
    expect(header).toEqual({ alg: 'EdDSA', kid: signer.keyId, jku: 'https://svc.example/jwks' })
    const jwks = { keys: [signer.publicJwk] }
    for (const [field, value] of [
      ['jwks_url', 'https://attacker.example/jwks'],
      ['key_id', 'another-kid'],
      ['hash_algorithm', 'MD5'],
      ['canonicalization', 'none'],
      ['signature_algorithm', 'none'],
    ] as const) {
      const outcome = await verifyReport(
        { ...report, evidence: { ...report.evidence, [field]: value } },
        jwks,
      )
      expect(outcome.ok, field).toBe(false)
      expect(outcome.problems.join(' '), field).toContain(`evidence.${field}`)
    }
  })

  it('reads pinned keys: a JWKS, or kid to JWK or PEM; refuses private keys and keys without kid', async () => {
    const signer = await ephemeralSigner()
    const pem = createPublicKey({ key: signer.publicJwk as import('node:crypto').JsonWebKey, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString()
    const { kid: _kid, ...withoutKid } = signer.publicJwk
    const report = { ...CONTENT, evidence: await buildEvidence(CONTENT, signer, 'http://127.0.0.1/jwks') }
    for (const document of [
      { keys: [signer.publicJwk] },
      { [signer.keyId]: pem },
      { [signer.keyId]: withoutKid },
    ]) {
      expect(await verifyReport(report, trustedKeysFrom(document))).toMatchObject({ ok: true })
    }
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })
    const privateJwk = await exportJWK(privateKey)
    expect(() => trustedKeysFrom({ k: privateJwk })).toThrow(/private key/)
    expect(() => trustedKeysFrom({ keys: [withoutKid] })).toThrow(/no kid/)
    expect(() => trustedKeysFrom({})).toThrow(/no key/)
    expect(() => trustedKeysFrom([1])).toThrow(/JWKS/)
    expect(() => trustedKeysFrom({ k: 'not a pem' })).toThrow(/PEM/)
  })
})
