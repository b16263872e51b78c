import { type Hex, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../../core/payments/evm/eip3009.ts'

export interface AuthorizationToSign {
  key: Hex
  to: string
  value: bigint
  /** The USDC contract (EIP-712 verifyingContract). */
  asset: string
  chainId?: number
  validAfter?: bigint
  /** Default: 200 s from now. */
  validBefore?: bigint
  /** Default: 32 random bytes. */
  nonce?: Hex
}

/**
 * Signs an EIP-3009 TransferWithAuthorization the way x402 clients do (EIP-712 domain
 * "USD Coin" / "2"), for tests and benchmarks that build payments by hand. Returns the signature
 * and the authorization in wire form (decimal strings).
 */
export async function signAuthorization(input: AuthorizationToSign) {
  const signer = privateKeyToAccount(input.key)
  const message = {
    from: signer.address,
    to: input.to as Hex,
    value: input.value,
    validAfter: input.validAfter ?? 0n,
    validBefore: input.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 200),
    nonce: input.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  const signature = await signer.signTypedData({
    domain: {
      name: 'USD Coin',
      version: '2',
      chainId: input.chainId ?? 84532,
      verifyingContract: input.asset as Hex,
    },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message,
  })
  const authorization = {
    from: message.from as string,
    to: message.to as string,
    value: message.value.toString(),
    validAfter: message.validAfter.toString(),
    validBefore: message.validBefore.toString(),
    nonce: message.nonce as string,
  }
  return { signature, authorization }
}
