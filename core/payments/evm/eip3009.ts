import { type Address, concat, type Hex, hashDomain, hashStruct, keccak256 } from 'viem'
import type { EvmAuthorization } from '../verify-result.ts'

/** EIP-712 types of EIP-3009 `TransferWithAuthorization` (spec: x402 details, EVM payments). */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

/** The EIP-712 domain of an EIP-3009 token: its name and version, chain and contract. */
export interface Eip3009Domain {
  name: string
  version: string
  chainId: number
  verifyingContract: Address
}

const DOMAIN_TYPES = {
  EIP712Domain: [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ],
  ...TRANSFER_WITH_AUTHORIZATION_TYPES,
} as const

/** Domain separators by domain: a service accepts a handful of networks, each hashed once. */
const separators = new Map<string, Hex>()

/**
 * The EIP-712 digest a payer signs for a TransferWithAuthorization: the same bytes as viem's
 * `hashTypedData` (a test compares them), with the domain separator hashed once per domain
 * instead of on every payment (a third of the digest's cost). The message is encoded by viem's
 * `hashStruct`, which throws on a value out of its type's range as `hashTypedData` does.
 */
export function transferWithAuthorizationDigest(domain: Eip3009Domain, message: EvmAuthorization): Hex {
  const key = `${domain.name}\u0000${domain.version}\u0000${domain.chainId}\u0000${domain.verifyingContract.toLowerCase()}`
  let separator = separators.get(key)
  if (!separator) {
    separator = hashDomain({ domain: { ...domain, chainId: BigInt(domain.chainId) }, types: DOMAIN_TYPES })
    separators.set(key, separator)
  }
  const struct = hashStruct({
    data: message,
    primaryType: 'TransferWithAuthorization',
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
  })
  return keccak256(concat(['0x1901', separator, struct]))
}

/** The parts of a FiatToken (USDC) ABI that settlement and its diagnosis use. */
export const EIP3009_TOKEN_ABI = [
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'validAfter', type: 'uint256' },
      { name: 'validBefore', type: 'uint256' },
      { name: 'nonce', type: 'bytes32' },
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'validAfter', type: 'uint256' },
      { name: 'validBefore', type: 'uint256' },
      { name: 'nonce', type: 'bytes32' },
      { name: 'signature', type: 'bytes' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'authorizationState',
    stateMutability: 'view',
    inputs: [
      { name: 'authorizer', type: 'address' },
      { name: 'nonce', type: 'bytes32' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'account', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const

/** The FiatToken events that say what became of an authorization nonce, and the transfer it makes. */
export const EIP3009_EVENTS_ABI = [
  {
    type: 'event',
    name: 'AuthorizationUsed',
    inputs: [
      { name: 'authorizer', type: 'address', indexed: true },
      { name: 'nonce', type: 'bytes32', indexed: true },
    ],
  },
  {
    type: 'event',
    name: 'AuthorizationCanceled',
    inputs: [
      { name: 'authorizer', type: 'address', indexed: true },
      { name: 'nonce', type: 'bytes32', indexed: true },
    ],
  },
  {
    type: 'event',
    name: 'Transfer',
    inputs: [
      { name: 'from', type: 'address', indexed: true },
      { name: 'to', type: 'address', indexed: true },
      { name: 'value', type: 'uint256', indexed: false },
    ],
  },
] as const
