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
  if (config.REPORT_SIGNING_KEY) {
    return configuredSigner('REPORT_SIGNING_KEY', config.REPORT_SIGNING_KEY.replace(/\\n/g, '\n'))
  }
  if (config.REPORT_SIGNING_KEY_FILE) {
    const file = config.REPORT_SIGNING_KEY_FILE
    let pem: string
    try {
      pem = readFileSync(file, 'utf8')
    } catch (error) {
      throw configError('REPORT_SIGNING_KEY_FILE', `cannot read ${file} (${(error as Error).message})`)
    }
    return configuredSigner('REPORT_SIGNING_KEY_FILE', pem, ` in ${file}`)
  }
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
  let pem: string
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { key_id: string; sealed: string }
    pem = box.open(stored.key_id, Buffer.from(stored.sealed, 'base64'))
  } catch (error) {
    throw configError(
      'WEBHOOK_SECRET_KEYS',
      `cannot open the report signing key sealed in ${file} (${(error as Error).message}); it was sealed with another webhook secret key (WEBHOOK_SECRET_KEYS, or DATA_DIR/webhook-secret.key): restore that key, or set REPORT_SIGNING_KEY`,
    )
  }
  return signerFromPem(pem)
}

/** The start-up error of one configuration variable, in the form config.ts reports them. */
function configError(variable: string, message: string): Error {
  return new Error(`invalid configuration:\n  ${variable}: ${message}`)
}

/**
 * The signer of an operator-supplied PEM. A malformed key stops start-up naming the variable that
 * holds it (never the key itself), instead of a bare parser error.
 */
async function configuredSigner(variable: string, pem: string, where = ''): Promise<ReportSigner> {
  try {
    return await signerFromPem(pem)
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0]
    throw configError(
      variable,
      `is not an Ed25519 private key in PKCS#8 PEM${where} (${reason}); create one with \`openssl genpkey -algorithm ed25519\``,
    )
  }
}
