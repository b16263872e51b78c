import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { createKeyPairFromBytes, getBase58Decoder, getBase58Encoder, signBytes } from '@solana/kit'

/**
 * The service's own Solana fee payer (SOLANA_FEE_PAYER_KEY): it co-signs x402 SVM payment
 * transactions as fee payer and is advertised in the challenge's `extra.feePayer`.
 */
export interface SolanaFeePayer {
  /** Base58 public key. */
  address: string
  /** Ed25519 signature of the message bytes (deterministic: the same message gives the same signature). */
  sign(message: Uint8Array): Promise<Uint8Array>
}

/**
 * Reads a Solana secret key as wallets and `solana-keygen` hand it out: the base58 encoding of the
 * 64-byte secret key (seed then public key), or the path of a JSON file holding those 64 bytes as
 * an array of numbers (`~/` is the home directory). Throws a message naming the problem (never the key) on anything else.
 */
export function readSolanaSecretKey(value: string): Uint8Array {
  const text = value.trim()
  let bytes: Uint8Array
  if (/^[1-9A-HJ-NP-Za-km-z]{32,100}$/.test(text)) {
    bytes = new Uint8Array(getBase58Encoder().encode(text))
  } else {
    let json: unknown
    try {
      // `~/.config/solana/id.json`, as solana-keygen prints it, is the user's home.
      const path = text.startsWith('~/') ? join(homedir(), text.slice(2)) : text
      json = JSON.parse(readFileSync(path, 'utf8'))
    } catch (error) {
      const code = (error as { code?: string }).code
      throw new Error(
        code === 'ENOENT'
          ? 'is neither a base58 secret key nor the path of an existing key file'
          : 'key file is not JSON (expected the solana-keygen array of 64 numbers)',
      )
    }
    if (
      !Array.isArray(json) ||
      !json.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 255)
    ) {
      throw new Error('key file must hold a JSON array of byte values (solana-keygen format)')
    }
    bytes = Uint8Array.from(json as number[])
  }
  if (bytes.length !== 64) throw new Error(`secret key must be 64 bytes, got ${bytes.length}`)
  return bytes
}

/** The base58 address of a 64-byte Solana secret key (its last 32 bytes). */
export function solanaAddressOfSecretKey(secretKey: Uint8Array): string {
  return getBase58Decoder().decode(secretKey.subarray(32, 64))
}

/**
 * Builds the fee payer from a 64-byte secret key. Rejects when the public half does not belong to
 * the private half (a corrupted or hand-edited key).
 */
export async function createSolanaFeePayer(secretKey: Uint8Array): Promise<SolanaFeePayer> {
  const keyPair = await createKeyPairFromBytes(secretKey)
  return {
    address: solanaAddressOfSecretKey(secretKey),
    async sign(message) {
      return new Uint8Array(await signBytes(keyPair.privateKey, message))
    },
  }
}
