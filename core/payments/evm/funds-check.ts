import { type Address, createPublicClient, http } from 'viem'
import type { FundsCheck } from '../payment-schemes.ts'
import { EIP3009_TOKEN_ABI } from './eip3009.ts'

/**
 * The on-chain check for EVM payments on networks with an RPC URL: the token's
 * `authorizationState(from, nonce)` and `balanceOf(from)`, read in parallel. An RPC that does not
 * answer in time does not refuse the payment (settlement still decides).
 */
export function createOnChainFundsCheck(
  rpcUrls: Readonly<Record<string, string>>,
  timeoutMs = 3000,
): FundsCheck | undefined {
  const clients = new Map(
    Object.entries(rpcUrls).map(([network, url]) => [
      network,
      createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0 }) }),
    ]),
  )
  if (clients.size === 0) return undefined
  return async (payment) => {
    const client = clients.get(payment.network)
    const authorization = payment.authorization
    if (!client || !authorization) return undefined
    const token = payment.requirement.network.asset as Address
    try {
      const [used, balance] = await Promise.all([
        client.readContract({
          address: token,
          abi: EIP3009_TOKEN_ABI,
          functionName: 'authorizationState',
          args: [authorization.from, authorization.nonce],
        }),
        client.readContract({
          address: token,
          abi: EIP3009_TOKEN_ABI,
          functionName: 'balanceOf',
          args: [authorization.from],
        }),
      ])
      if (used) return { code: 'nonce_replay', message: 'this authorization was already used on chain' }
      if (balance < authorization.value) {
        return {
          code: 'insufficient_funds',
          message: `the payer holds ${balance} USDC units, less than the ${authorization.value} authorized`,
        }
      }
      return undefined
    } catch {
      return undefined
    }
  }
}
