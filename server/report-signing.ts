import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { exportPKCS8, generateKeyPair } from 'jose'
import { ephemeralSigner, type ReportSigner, signerFromPem } from '../core/reports/evidence.ts'
import type { SecretBox } from '../core/webhooks/secret-box.ts'
import type { Config } from './config.ts'

const SEALED_FILE = 'report-signing-key.sealed.json'

/**
 * The entity reports' signing key. REPORT_SIGNING_KEY (PEM) or REPORT_SIGNING_KEY_FILE (path of a
 * PEM, `openssl genpkey -algorithm ed25519`) in production (required there). A local service on
 * its embedded database generates one on first start and keeps it sealed at rest in DATA_DIR
 * with the secret box of the webhook secrets (AES-256-GCM), so reports keep verifying across
 * restarts. Tests on a scratch database get a key held in memory only.
 */
export async function buildReportSigner(
  config: Config,
  embedded: boolean,
  box: SecretBox,
): Promise<ReportSigner> {
  if (config.REPORT_SIGNING_KEY) return signerFromPem(config.REPORT_SIGNING_KEY.replace(/\\n/g, '\n'))
  if (config.REPORT_SIGNING_KEY_FILE)
    return signerFromPem(readFileSync(config.REPORT_SIGNING_KEY_FILE, 'utf8'))
  if (config.NODE_ENV === 'production') {
    throw new Error(
      'invalid configuration:\n  REPORT_SIGNING_KEY: required when NODE_ENV=production (or REPORT_SIGNING_KEY_FILE)',
    )
  }
  if (!embedded) return ephemeralSigner()
  const file = path.join(config.DATA_DIR, SEALED_FILE)
  if (!existsSync(file)) {
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })
    const sealed = box.seal(await exportPKCS8(privateKey))
    mkdirSync(config.DATA_DIR, { recursive: true })
    writeFileSync(
      file,
      `${JSON.stringify({ key_id: sealed.keyId, sealed: Buffer.from(sealed.sealed).toString('base64') })}\n`,
      { mode: 0o600, flag: 'wx' },
    )
  }
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { key_id: string; sealed: string }
  return signerFromPem(box.open(stored.key_id, Buffer.from(stored.sealed, 'base64')))
}
