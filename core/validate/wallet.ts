import { getAddress } from 'viem'
import { decodeBase58, decodeBase58Check } from './base58.ts'
import { decodeSegwitAddress } from './bech32.ts'
import { invalid, type ValidationResult, valid } from './result.ts'

/** The wallet_chain values of the entity check (spec: "eth, base, polygon, arbitrum, btc, sol; defaults to eth"). */
export const WALLET_CHAINS = ['eth', 'base', 'polygon', 'arbitrum', 'btc', 'sol'] as const
export type WalletChain = (typeof WALLET_CHAINS)[number]
/** The chain of a wallet address given without one (spec: wallet_chain defaults to eth). */
export const DEFAULT_WALLET_CHAIN: WalletChain = 'eth'

export type WalletKind = 'evm' | 'solana' | 'bitcoin'

/** Address family each chain uses. */
export const WALLET_KIND_OF_CHAIN: Record<WalletChain, WalletKind> = {
  eth: 'evm',
  base: 'evm',
  polygon: 'evm',
  arbitrum: 'evm',
  btc: 'bitcoin',
  sol: 'solana',
}

export type ParsedWallet = {
  /** Normalised address: EIP-55 checksummed for EVM, unchanged for Solana, lowercase for bech32. */
  address: string
  kind: WalletKind
  /** Bitcoin only: the output type the address encodes. */
  bitcoin_type?: 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'segwit'
}

/**
 * Validates an EVM address: 0x + 40 hex. All-lowercase and all-uppercase hex carry no checksum
 * and are accepted; mixed case must be a correct EIP-55 checksum (a wrong one usually means a
 * typo). Normalised to the EIP-55 form via viem's getAddress.
 */
export function validateEvmAddress(input: string): ValidationResult<string> {
  if (!/^0x[0-9a-fA-F]{40}$/.test(input)) return invalid('must be 0x followed by 40 hexadecimal characters')
  const hex = input.slice(2)
  const checksummed = getAddress(`0x${hex.toLowerCase()}`)
  const mixedCase = hex !== hex.toLowerCase() && hex !== hex.toUpperCase()
  if (mixedCase && checksummed !== input)
    return invalid('has an invalid EIP-55 checksum (check the upper/lower case letters)')
  return valid(checksummed)
}

/** Validates a Solana address: base58, 32-44 characters, decoding to a 32-byte public key. */
export function validateSolanaAddress(input: string): ValidationResult<string> {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(input)) return invalid('must be 32 to 44 base58 characters')
  const bytes = decodeBase58(input)
  if (bytes === null || bytes.length !== 32) return invalid('must decode to a 32-byte Solana public key')
  return valid(input)
}

/**
 * Validates a Bitcoin mainnet address with its checksum: legacy Base58Check P2PKH (1...) and
 * P2SH (3...), and segwit bc1 addresses (Bech32 for v0, Bech32m for v1+, BIP-173/BIP-350).
 * Testnet and regtest addresses are refused.
 */
export function validateBitcoinAddress(input: string): ValidationResult<ParsedWallet> {
  if (/^bc1/i.test(input)) {
    const segwit = decodeSegwitAddress('bc', input)
    if (segwit === null) return invalid('is not a valid bc1 address (bad Bech32/Bech32m checksum or program)')
    const type =
      segwit.version === 0
        ? segwit.program.length === 20
          ? 'p2wpkh'
          : 'p2wsh'
        : segwit.version === 1 && segwit.program.length === 32
          ? 'p2tr'
          : 'segwit'
    return valid({ address: input.toLowerCase(), kind: 'bitcoin', bitcoin_type: type })
  }
  if (/^[13][1-9A-HJ-NP-Za-km-z]{24,33}$/.test(input)) {
    const payload = decodeBase58Check(input)
    if (payload === null || payload.length !== 21) return invalid('has an invalid Base58Check checksum')
    if (payload[0] === 0x00) return valid({ address: input, kind: 'bitcoin', bitcoin_type: 'p2pkh' })
    if (payload[0] === 0x05) return valid({ address: input, kind: 'bitcoin', bitcoin_type: 'p2sh' })
    return invalid('is not a Bitcoin mainnet address')
  }
  return invalid('must be a Bitcoin mainnet address (1..., 3... or bc1...)')
}

/**
 * Validates a wallet address of any supported family and reports which one it is. Spec:
 * "wallet_address: EVM (0x, 42 characters) or Solana (base58, 32-44 characters)"; Bitcoin is
 * accepted too because wallet_chain allows btc. An address is tried as EVM when it starts with
 * 0x, otherwise as Bitcoin when it has a Bitcoin shape and checksum, otherwise as Solana.
 */
export function validateWalletAddress(input: string): ValidationResult<ParsedWallet> {
  if (/^0x/i.test(input)) {
    const evm = validateEvmAddress(input)
    return evm.ok ? valid({ address: evm.value, kind: 'evm' }) : evm
  }
  const bitcoin = validateBitcoinAddress(input)
  if (bitcoin.ok) return bitcoin
  if (/^bc1/i.test(input)) return bitcoin
  const solana = validateSolanaAddress(input)
  if (solana.ok) return valid({ address: solana.value, kind: 'solana' })
  return invalid(
    'must be an EVM address (0x + 40 hex), a Solana address (base58, 32-44 characters) or a Bitcoin address',
  )
}

/**
 * Validates an address against the chain it is claimed to be on (entity check wallet_chain):
 * eth, base, polygon and arbitrum take EVM addresses, sol a Solana address, btc a Bitcoin one.
 */
export function validateWalletForChain(input: string, chain: WalletChain): ValidationResult<ParsedWallet> {
  const kind = WALLET_KIND_OF_CHAIN[chain]
  if (kind === 'evm') {
    const evm = validateEvmAddress(input)
    return evm.ok
      ? valid({ address: evm.value, kind })
      : invalid(`${evm.message} (wallet_chain ${chain} uses EVM addresses)`)
  }
  if (kind === 'solana') {
    const sol = validateSolanaAddress(input)
    return sol.ok
      ? valid({ address: sol.value, kind })
      : invalid(`${sol.message} (wallet_chain sol uses Solana addresses)`)
  }
  const btc = validateBitcoinAddress(input)
  return btc.ok ? btc : invalid(`${btc.message} (wallet_chain btc uses Bitcoin addresses)`)
}

/**
 * The chain of a wallet address: the one given, else the one its format names (spec:
 * "wallet_address: EVM or Solana"; wallet_chain "defaults to eth"): a Solana address (base58
 * decoding to a 32-byte key) is `sol` and a Bitcoin address `btc` without being told, an EVM
 * address or anything unrecognised the default `eth` (then refused with the EVM message). The
 * families cannot be confused: 0x-hex is never base58, and a Bitcoin address decodes to 25 bytes.
 */
export function walletChainOf(address: string, given?: WalletChain): WalletChain {
  if (given) return given
  const parsed = validateWalletAddress(address)
  if (!parsed.ok) return DEFAULT_WALLET_CHAIN
  if (parsed.value.kind === 'solana') return 'sol'
  if (parsed.value.kind === 'bitcoin') return 'btc'
  return DEFAULT_WALLET_CHAIN
}
