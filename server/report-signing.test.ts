import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { exportPKCS8, generateKeyPair } from 'jose'
import { describe, expect, it } from 'vitest'
import { createSecretBox } from '../core/webhooks/secret-box.ts'
import { testConfig } from '../test/support/test-config.ts'
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
