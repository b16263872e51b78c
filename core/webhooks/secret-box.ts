import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

/**
 * Webhook secrets at rest: AES-256-GCM (random 12-byte IV, 16-byte tag), stored as
 * iv || tag || ciphertext with the id of the key that sealed it. Several keys may be configured
 * (rotation): the first seals, any of them opens (docs/sanctions.md, "Sanctions monitoring").
 */
export interface SecretBox {
  /** Id of the key new secrets are sealed with. */
  readonly currentKeyId: string
  seal(plaintext: string): { keyId: string; sealed: Uint8Array }
  open(keyId: string, sealed: Uint8Array): string
}

/** A key id that names a key without revealing it: the first 8 hex of its SHA-256. */
export function keyIdOf(key: Uint8Array): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8)
}

/** Parses one key: 64 hex characters or base64 of 32 bytes. Throws otherwise. */
export function parseSecretKey(text: string): Uint8Array {
  const trimmed = text.trim()
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64')
  if (bytes.length !== 32)
    throw new Error('a webhook secret key must be 32 bytes (64 hex characters or base64)')
  return bytes
}

/** Builds the box over `keys` (first one seals). */
export function createSecretBox(keys: readonly Uint8Array[]): SecretBox {
  if (keys.length === 0) throw new Error('at least one webhook secret key is needed')
  const byId = new Map(keys.map((key) => [keyIdOf(key), key]))
  const current = keys[0]!
  const currentKeyId = keyIdOf(current)
  return {
    currentKeyId,
    seal(plaintext) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', current, iv)
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return { keyId: currentKeyId, sealed: Buffer.concat([iv, cipher.getAuthTag(), data]) }
    },
    open(keyId, sealed) {
      const key = byId.get(keyId)
      if (!key)
        throw new Error(
          `webhook secret sealed with unknown key ${keyId}; configure it in WEBHOOK_SECRET_KEYS`,
        )
      const bytes = Buffer.from(sealed)
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12))
      decipher.setAuthTag(bytes.subarray(12, 28))
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
    },
  }
}
