import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { exportPKCS8, generateKeyPair } from 'jose'
import { describe, expect, it } from 'vitest'
import { createSecretBox } from '../core/webhooks/secret-box.ts'
import { OFFLINE_LISTS, testConfig } from '../test/support/test-config.ts'
import { loadConfig } from './config.ts'
import { buildReportSigner } from './report-signing.ts'

describe('report signing key from config', () => {
  it('embedded: generated once, sealed at rest (no PEM on disk), the same kid after a restart', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'report-key-'))
    const config = testConfig({ DATA_DIR: dir })
    const box = createSecretBox([randomBytes(32)])
    const first = await buildReportSigner(config, true, box)
    const again = await buildReportSigner(config, true, box)
    expect(again.keyId).toBe(first.keyId)
    const stored = await readFile(path.join(dir, 'report-signing-key.sealed.json'), 'utf8')
    expect(stored).not.toContain('PRIVATE KEY')
    expect(JSON.parse(stored)).toMatchObject({ key_id: box.currentKeyId })
    // Without the secret key the sealed file cannot be opened.
    await expect(buildReportSigner(config, true, createSecretBox([randomBytes(32)]))).rejects.toThrow()
  })

  it('REPORT_SIGNING_KEY (PEM) is used as given; production without one stops start-up', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })
    const pem = await exportPKCS8(privateKey)
    const box = createSecretBox([randomBytes(32)])
    const a = await buildReportSigner(testConfig({ REPORT_SIGNING_KEY: pem }), false, box)
    const b = await buildReportSigner(testConfig({ REPORT_SIGNING_KEY: pem }), false, box)
    expect(a.keyId).toBe(b.keyId)
    expect(a.publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', kid: a.keyId })
    expect(a.publicJwk).not.toHaveProperty('d')
    await expect(
      buildReportSigner(testConfig({ NODE_ENV: 'production', ADMIN_API_KEY: 'x'.repeat(40) }), false, box),
    ).rejects.toThrow(/REPORT_SIGNING_KEY/)
  })
})

describe('a malformed signing key stops start-up naming its variable', () => {
  const box = createSecretBox([randomBytes(32)])

  it('REPORT_SIGNING_KEY that is not a PEM, or not an Ed25519 key: refused with the other variables', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true })
    const ecPem = await exportPKCS8(privateKey)
    for (const value of ['not a key', ecPem, ecPem.replaceAll('\n', '\\n')]) {
      expect(() => loadConfig({ ...OFFLINE_LISTS, REPORT_SIGNING_KEY: value })).toThrow(
        /^invalid configuration:\n {2}REPORT_SIGNING_KEY: must be an Ed25519 private key in PKCS#8 PEM/,
      )
    }
    // The key itself never appears in the message.
    expect(() => loadConfig({ ...OFFLINE_LISTS, REPORT_SIGNING_KEY: ecPem })).not.toThrow(/PRIVATE KEY/)
  })

  it('a config built without loadConfig still names REPORT_SIGNING_KEY at start-up', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true })
    const ecPem = await exportPKCS8(privateKey)
    await expect(
      buildReportSigner({ ...testConfig(), REPORT_SIGNING_KEY: 'not a key' }, false, box),
    ).rejects.toThrow(
      /^invalid configuration:\n {2}REPORT_SIGNING_KEY: is not an Ed25519 private key in PKCS#8 PEM/,
    )
    const refusal = buildReportSigner({ ...testConfig(), REPORT_SIGNING_KEY: ecPem }, false, box)
    await expect(refusal).rejects.toThrow(/REPORT_SIGNING_KEY: is not an Ed25519 private key/)
    // The key itself never appears in the message.
    await expect(refusal).rejects.not.toThrow(/PRIVATE KEY/)
  })

  it('REPORT_SIGNING_KEY_FILE missing, or holding something else', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'report-key-'))
    const missing = path.join(dir, 'absent.pem')
    await expect(
      buildReportSigner(testConfig({ REPORT_SIGNING_KEY_FILE: missing }), false, box),
    ).rejects.toThrow(`REPORT_SIGNING_KEY_FILE: cannot read ${missing}`)
    const garbage = path.join(dir, 'garbage.pem')
    await writeFile(garbage, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')
    await expect(
      buildReportSigner(testConfig({ REPORT_SIGNING_KEY_FILE: garbage }), false, box),
    ).rejects.toThrow(`REPORT_SIGNING_KEY_FILE: is not an Ed25519 private key in PKCS#8 PEM in ${garbage}`)
  })

  it('a sealed key that the current secret key cannot open names WEBHOOK_SECRET_KEYS', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'report-key-'))
    const config = testConfig({ DATA_DIR: dir })
    await buildReportSigner(config, true, box)
    await expect(buildReportSigner(config, true, createSecretBox([randomBytes(32)]))).rejects.toThrow(
      /^invalid configuration:\n {2}WEBHOOK_SECRET_KEYS: cannot open the report signing key sealed in/,
    )
  })
})
