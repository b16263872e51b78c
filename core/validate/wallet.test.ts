import fc from 'fast-check'
import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { encodeBase58, encodeBase58Check } from './base58.ts'
import { convertBits, encodeBech32 } from './bech32.ts'
import {
  validateBitcoinAddress,
  validateEvmAddress,
  validateSolanaAddress,
  validateWalletAddress,
  validateWalletForChain,
  WALLET_CHAINS,
  walletChainOf,
} from './wallet.ts'

const VITALIK = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045'
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const WRAPPED_SOL = 'So11111111111111111111111111111111111111112'
const USDC_SOLANA_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n })
const flipCase = (ch: string) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())

function segwit(version: number, program: Uint8Array, encoding: 'bech32' | 'bech32m'): string {
  const words = convertBits([...program], 8, 5, true) ?? []
  return encodeBech32('bc', [version, ...words], encoding)
}

describe('validateEvmAddress', () => {
  it('accepts real checksummed addresses and returns them unchanged', () => {
    expect(validateEvmAddress(VITALIK)).toEqual({ ok: true, value: VITALIK })
    expect(validateEvmAddress(USDC_BASE)).toEqual({ ok: true, value: USDC_BASE })
  })

  it('accepts all-lowercase and all-uppercase hex and normalises to EIP-55', () => {
    expect(validateEvmAddress(VITALIK.toLowerCase())).toEqual({ ok: true, value: VITALIK })
    expect(validateEvmAddress(`0x${VITALIK.slice(2).toUpperCase()}`)).toEqual({ ok: true, value: VITALIK })
  })

  it('refuses a mixed-case address with a broken EIP-55 checksum', () => {
    const broken = '0xd8da6BF26964aF9D7eEd9e03E53415D37aA96045' // 5th hex letter lowercased
    expect(broken).not.toBe(VITALIK)
    const result = validateEvmAddress(broken)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.message).toMatch(/EIP-55/)
  })

  it('refuses wrong length, missing 0x, 0X and non-hex characters', () => {
    for (const input of [
      VITALIK.slice(0, 41),
      `${VITALIK}0`,
      VITALIK.slice(2),
      `0X${VITALIK.slice(2)}`,
      `${VITALIK.slice(0, 41)}g`,
      '',
    ]) {
      expect(validateEvmAddress(input).ok, input).toBe(false)
    }
  })

  it('accepts any checksummed address and refuses it with one letter flipped', () => {
    fc.assert(
      fc.property(bytes(20), fc.nat(), (raw, pick) => {
        const address = getAddress(`0x${Buffer.from(raw).toString('hex')}`)
        expect(validateEvmAddress(address)).toEqual({ ok: true, value: address })
        const letters = [...address.slice(2)].flatMap((ch, i) => (/[a-fA-F]/.test(ch) ? [i + 2] : []))
        fc.pre(letters.length >= 2)
        const at = letters[pick % letters.length] ?? 2
        const mutated = address.slice(0, at) + flipCase(address[at] ?? '') + address.slice(at + 1)
        // A flip that leaves the address all one case makes an unchecksummed address, which is valid.
        const body = mutated.slice(2)
        fc.pre(body !== body.toLowerCase() && body !== body.toUpperCase())
        expect(validateEvmAddress(mutated).ok).toBe(false)
      }),
    )
  })
})

describe('validateSolanaAddress', () => {
  it('accepts real Solana addresses (wrapped SOL and the USDC mint)', () => {
    expect(validateSolanaAddress(WRAPPED_SOL).ok).toBe(true)
    expect(validateSolanaAddress(USDC_SOLANA_MINT).ok).toBe(true)
  })

  it('refuses base58 text that does not decode to 32 bytes', () => {
    expect(validateSolanaAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa').ok).toBe(false) // 25-byte Bitcoin payload
    expect(validateSolanaAddress('1'.repeat(31)).ok).toBe(false)
  })

  it('refuses characters outside base58 (0, O, I, l) and wrong lengths', () => {
    for (const input of [
      `${WRAPPED_SOL.slice(0, -1)}0`,
      `${WRAPPED_SOL.slice(0, -1)}O`,
      `${WRAPPED_SOL.slice(0, -1)}l`,
      'abc',
      `${USDC_SOLANA_MINT}1`,
    ]) {
      expect(validateSolanaAddress(input).ok, input).toBe(false)
    }
  })

  it('accepts the base58 encoding of any 32-byte key and refuses 31- or 33-byte ones', () => {
    fc.assert(fc.property(bytes(32), (key) => validateSolanaAddress(encodeBase58(key)).ok))
    fc.assert(
      fc.property(fc.oneof(bytes(31), bytes(33)), (key) => !validateSolanaAddress(encodeBase58(key)).ok),
    )
  })
})

describe('validateBitcoinAddress', () => {
  it('accepts the genesis P2PKH, a P2SH, and BIP-173/BIP-350 segwit addresses', () => {
    const cases: Array<[string, string]> = [
      ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'p2pkh'],
      ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'p2sh'],
      ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'p2wpkh'],
      ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'p2wpkh'],
      ['bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', 'p2wsh'],
      ['bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297', 'p2tr'],
    ]
    for (const [address, type] of cases) {
      const result = validateBitcoinAddress(address)
      expect(result.ok, address).toBe(true)
      if (result.ok) expect(result.value.bitcoin_type).toBe(type)
    }
  })

  it('refuses BIP-350 invalid vectors: wrong checksum variant, mixed case, testnet', () => {
    for (const address of [
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', // v1 with Bech32 checksum
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', // v0 with Bech32m checksum
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdQ', // mixed case
      'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', // testnet
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', // broken Base58Check
      'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', // testnet P2PKH
    ]) {
      expect(validateBitcoinAddress(address).ok, address).toBe(false)
    }
  })

  it('accepts any P2PKH built with Base58Check and refuses it with one character changed', () => {
    fc.assert(
      fc.property(bytes(20), fc.nat(), fc.nat(), (hash, pick, replacement) => {
        const address = encodeBase58Check(Uint8Array.from([0, ...hash]))
        expect(validateBitcoinAddress(address).ok).toBe(true)
        const at = 1 + (pick % (address.length - 1))
        const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
        const ch = alphabet[replacement % alphabet.length] ?? '2'
        fc.pre(ch !== address[at])
        expect(validateBitcoinAddress(address.slice(0, at) + ch + address.slice(at + 1)).ok).toBe(false)
      }),
    )
  })

  it('accepts v0 programs only with Bech32 and v1 programs only with Bech32m', () => {
    fc.assert(
      fc.property(fc.oneof(bytes(20), bytes(32)), bytes(32), (v0program, v1program) => {
        expect(validateBitcoinAddress(segwit(0, v0program, 'bech32')).ok).toBe(true)
        expect(validateBitcoinAddress(segwit(0, v0program, 'bech32m')).ok).toBe(false)
        const taproot = validateBitcoinAddress(segwit(1, v1program, 'bech32m'))
        expect(taproot.ok && taproot.value.bitcoin_type).toBe('p2tr')
        expect(validateBitcoinAddress(segwit(1, v1program, 'bech32')).ok).toBe(false)
      }),
    )
  })

  it('refuses a segwit address with one data character changed', () => {
    const charset = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
    fc.assert(
      fc.property(bytes(32), fc.nat(), fc.nat(), (program, pick, replacement) => {
        const address = segwit(1, program, 'bech32m')
        const at = 4 + (pick % (address.length - 4))
        const ch = charset[replacement % 32] ?? 'q'
        fc.pre(ch !== address[at])
        expect(validateBitcoinAddress(address.slice(0, at) + ch + address.slice(at + 1)).ok).toBe(false)
      }),
    )
  })
})

describe('validateWalletAddress', () => {
  it('reports which kind of address it is', () => {
    expect(validateWalletAddress(VITALIK)).toEqual({ ok: true, value: { address: VITALIK, kind: 'evm' } })
    expect(validateWalletAddress(WRAPPED_SOL)).toEqual({
      ok: true,
      value: { address: WRAPPED_SOL, kind: 'solana' },
    })
    const btc = validateWalletAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')
    expect(btc.ok && btc.value.kind).toBe('bitcoin')
  })

  it('keeps the EVM checksum message for a broken 0x address', () => {
    const broken = VITALIK.replace('aF9D', 'Af9D')
    const result = validateWalletAddress(broken)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.message).toMatch(/EIP-55/)
  })

  it('refuses text that is no known address', () => {
    for (const input of ['hello', '', 'vitalik.eth', '0x123'])
      expect(validateWalletAddress(input).ok, input).toBe(false)
  })
})

describe('validateWalletForChain', () => {
  it('takes EVM addresses on eth, base, polygon and arbitrum', () => {
    for (const chain of ['eth', 'base', 'polygon', 'arbitrum'] as const) {
      expect(validateWalletForChain(VITALIK.toLowerCase(), chain)).toEqual({
        ok: true,
        value: { address: VITALIK, kind: 'evm' },
      })
      expect(validateWalletForChain(WRAPPED_SOL, chain).ok).toBe(false)
    }
  })

  it('takes a Solana address only on sol and a Bitcoin address only on btc', () => {
    expect(validateWalletForChain(WRAPPED_SOL, 'sol').ok).toBe(true)
    expect(validateWalletForChain(VITALIK, 'sol').ok).toBe(false)
    expect(validateWalletForChain('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'btc').ok).toBe(true)
    const wrong = validateWalletForChain(VITALIK, 'btc')
    expect(wrong.ok).toBe(false)
    if (!wrong.ok) expect(wrong.message).toMatch(/wallet_chain btc/)
  })

  it('lists the six spec chains', () => {
    expect(WALLET_CHAINS).toEqual(['eth', 'base', 'polygon', 'arbitrum', 'btc', 'sol'])
  })
})

describe('walletChainOf', () => {
  it('takes the chain given, else the one the address format names (eth by default)', () => {
    expect(walletChainOf('9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM')).toBe('sol')
    expect(walletChainOf('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toBe('btc')
    expect(walletChainOf('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe('btc')
    expect(walletChainOf('0x52908400098527886E0F7030069857D2E4169EE7')).toBe('eth')
    expect(walletChainOf('not an address')).toBe('eth')
    expect(walletChainOf('0x52908400098527886E0F7030069857D2E4169EE7', 'base')).toBe('base')
    expect(walletChainOf('9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', 'eth')).toBe('eth')
  })
})
