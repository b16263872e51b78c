/**
 * Bech32 (BIP-173) and Bech32m (BIP-350) decoding for Bitcoin segwit addresses.
 * Witness version 0 must use Bech32, versions 1-16 must use Bech32m.
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
const BECH32_CONST = 1
const BECH32M_CONST = 0x2bc830a3

export type Bech32Encoding = 'bech32' | 'bech32m'

function polymod(values: number[]): number {
  let chk = 1
  for (const v of values) {
    const top = chk >>> 25
    chk = ((chk & 0x1ffffff) << 5) ^ v
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GENERATOR[i] ?? 0
  }
  return chk >>> 0
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = []
  for (const ch of hrp) out.push(ch.charCodeAt(0) >> 5)
  out.push(0)
  for (const ch of hrp) out.push(ch.charCodeAt(0) & 31)
  return out
}

function checksumConstant(encoding: Bech32Encoding): number {
  return encoding === 'bech32' ? BECH32_CONST : BECH32M_CONST
}

/** Decodes a Bech32/Bech32m string to its human-readable part and 5-bit data (checksum removed). */
export function decodeBech32(text: string): { hrp: string; data: number[]; encoding: Bech32Encoding } | null {
  if (text.length > 90) return null
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return null
  const lower = text.toLowerCase()
  const sep = lower.lastIndexOf('1')
  if (sep < 1 || sep + 7 > lower.length) return null
  const hrp = lower.slice(0, sep)
  for (const ch of hrp) {
    const c = ch.charCodeAt(0)
    if (c < 33 || c > 126) return null
  }
  const data: number[] = []
  for (const ch of lower.slice(sep + 1)) {
    const v = CHARSET.indexOf(ch)
    if (v === -1) return null
    data.push(v)
  }
  const check = polymod([...hrpExpand(hrp), ...data])
  const encoding: Bech32Encoding | null =
    check === BECH32_CONST ? 'bech32' : check === BECH32M_CONST ? 'bech32m' : null
  if (encoding === null) return null
  return { hrp, data: data.slice(0, -6), encoding }
}

/** Encodes 5-bit data with a Bech32/Bech32m checksum (used by tests to build valid addresses). */
export function encodeBech32(hrp: string, data: number[], encoding: Bech32Encoding): string {
  const values = [...hrpExpand(hrp), ...data, 0, 0, 0, 0, 0, 0]
  const mod = polymod(values) ^ checksumConstant(encoding)
  const checksum: number[] = []
  for (let i = 0; i < 6; i++) checksum.push((mod >>> (5 * (5 - i))) & 31)
  return `${hrp}1${[...data, ...checksum].map((v) => CHARSET[v]).join('')}`
}

/** Regroups bits (e.g. 5-bit words to bytes); null when padding is invalid. */
export function convertBits(data: number[], from: number, to: number, pad: boolean): number[] | null {
  let acc = 0
  let bits = 0
  const out: number[] = []
  const maxv = (1 << to) - 1
  for (const value of data) {
    if (value < 0 || value >> from !== 0) return null
    acc = (acc << from) | value
    bits += from
    while (bits >= to) {
      bits -= to
      out.push((acc >> bits) & maxv)
    }
  }
  if (pad) {
    if (bits > 0) out.push((acc << (to - bits)) & maxv)
  } else if (bits >= from || ((acc << (to - bits)) & maxv) !== 0) {
    return null
  }
  return out
}

/**
 * Decodes a segwit address for the given human-readable part ("bc" for Bitcoin mainnet):
 * witness version 0-16, program 2-40 bytes, v0 programs 20 or 32 bytes, and the checksum variant
 * that matches the version.
 */
export function decodeSegwitAddress(
  hrp: string,
  address: string,
): { version: number; program: Uint8Array } | null {
  const decoded = decodeBech32(address)
  if (decoded === null || decoded.hrp !== hrp || decoded.data.length < 1) return null
  const version = decoded.data[0] ?? -1
  if (version < 0 || version > 16) return null
  if ((version === 0) !== (decoded.encoding === 'bech32')) return null
  const program = convertBits(decoded.data.slice(1), 5, 8, false)
  if (program === null || program.length < 2 || program.length > 40) return null
  if (version === 0 && program.length !== 20 && program.length !== 32) return null
  return { version, program: Uint8Array.from(program) }
}
