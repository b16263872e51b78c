import { createHash } from 'node:crypto'

/** Bitcoin base58 alphabet (also used by Solana): no 0, O, I or l. */
export const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

const INDEX = new Map<string, number>([...BASE58_ALPHABET].map((ch, i) => [ch, i]))

/** Decodes base58 text to bytes (leading '1's become leading zero bytes), or null for bad characters. */
export function decodeBase58(text: string): Uint8Array | null {
  let value = 0n
  for (const ch of text) {
    const digit = INDEX.get(ch)
    if (digit === undefined) return null
    value = value * 58n + BigInt(digit)
  }
  const bytes: number[] = []
  while (value > 0n) {
    bytes.push(Number(value & 0xffn))
    value >>= 8n
  }
  let leadingZeros = 0
  while (leadingZeros < text.length && text[leadingZeros] === '1') leadingZeros++
  return Uint8Array.from([...new Array<number>(leadingZeros).fill(0), ...bytes.reverse()])
}

/** Encodes bytes as base58 (used by tests to build valid addresses). */
export function encodeBase58(bytes: Uint8Array): string {
  let value = 0n
  for (const b of bytes) value = (value << 8n) | BigInt(b)
  let out = ''
  while (value > 0n) {
    out = BASE58_ALPHABET[Number(value % 58n)] + out
    value /= 58n
  }
  for (const b of bytes) {
    if (b !== 0) break
    out = `1${out}`
  }
  return out
}

function doubleSha256(bytes: Uint8Array): Uint8Array {
  const first = createHash('sha256').update(bytes).digest()
  return createHash('sha256').update(first).digest()
}

/** Base58Check: payload followed by the first 4 bytes of SHA256(SHA256(payload)). */
export function decodeBase58Check(text: string): Uint8Array | null {
  const bytes = decodeBase58(text)
  if (bytes === null || bytes.length < 5) return null
  const payload = bytes.slice(0, -4)
  const checksum = doubleSha256(payload).slice(0, 4)
  for (let i = 0; i < 4; i++) if (checksum[i] !== bytes[bytes.length - 4 + i]) return null
  return payload
}

/** Encodes a payload with its Base58Check checksum (used by tests). */
export function encodeBase58Check(payload: Uint8Array): string {
  const checksum = doubleSha256(payload).slice(0, 4)
  return encodeBase58(Uint8Array.from([...payload, ...checksum]))
}
