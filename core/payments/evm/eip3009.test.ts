import { type Address, type Hex, hashTypedData, keccak256, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import type { EvmAuthorization } from '../verify-result.ts'
import {
  type Eip3009Domain,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  transferWithAuthorizationDigest,
} from './eip3009.ts'

const domains: Eip3009Domain[] = [
  {
    name: 'USD Coin',
    version: '2',
    chainId: 8453,
    verifyingContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  },
  {
    name: 'USDC',
    version: '2',
    chainId: 84532,
    verifyingContract: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  },
  {
    name: 'TestUSDC',
    version: '1',
    chainId: 31337,
    verifyingContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  },
]

const address = (seed: number) => `0x${keccak256(toHex(`address ${seed}`)).slice(-40)}` as Address

describe('transferWithAuthorizationDigest', () => {
  it('gives the bytes viem’s hashTypedData gives, for every domain (each asked many times) and message', () => {
    let compared = 0
    for (let i = 0; i < 60; i++) {
      const domain = domains[i % domains.length]!
      const message: EvmAuthorization = {
        from: address(i),
        to: address(i + 1000),
        value: BigInt(i) * 10n ** BigInt(i % 30),
        validAfter: BigInt(i % 2 === 0 ? 0 : 1_700_000_000 + i),
        validBefore: 1_900_000_000n + BigInt(i),
        nonce: keccak256(toHex(`nonce ${i}`)),
      }
      expect(transferWithAuthorizationDigest(domain, message)).toBe(
        hashTypedData({
          domain,
          types: TRANSFER_WITH_AUTHORIZATION_TYPES,
          primaryType: 'TransferWithAuthorization',
          message,
        }),
      )
      compared++
    }
    expect(compared).toBe(60)
  })

  it('throws, as hashTypedData does, on a value beyond uint256 or a nonce that is not 32 bytes', () => {
    const domain = domains[0]!
    const message: EvmAuthorization = {
      from: address(1),
      to: address(2),
      value: 1n,
      validAfter: 0n,
      validBefore: 1_900_000_000n,
      nonce: keccak256(toHex('nonce')),
    }
    for (const broken of [
      { ...message, value: 2n ** 256n },
      { ...message, nonce: '0x1234' as Hex },
    ]) {
      expect(() =>
        hashTypedData({
          domain,
          types: TRANSFER_WITH_AUTHORIZATION_TYPES,
          primaryType: 'TransferWithAuthorization',
          message: broken,
        }),
      ).toThrow()
      expect(() => transferWithAuthorizationDigest(domain, broken)).toThrow()
    }
  })
})
