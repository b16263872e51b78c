import { x402Client } from '@x402/core/client'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import type { SolanaTestChain, TestSolanaKey } from './litesvm-chain.ts'

/**
 * The official x402 v2 SVM client for one payer: it reads the mint and a recent blockhash through
 * `rpcUrl` (the fake JSON-RPC backed by the litesvm chain) and may pay in the test mint.
 */
export function officialSvmClient(chain: SolanaTestChain, payer: TestSolanaKey, rpcUrl: string): x402Client {
  const client = new x402Client().register('solana:*', new ExactSvmScheme(payer.signer, { rpcUrl }))
  client.setSpendControls({
    allowedAssets: [{ network: chain.network as `${string}:${string}`, asset: chain.mint }],
  })
  return client
}
