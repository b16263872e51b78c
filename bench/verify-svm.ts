/**
 * Verification time of one Solana payment (exact SVM, verified by the service) against one EVM
 * payment (EIP-3009), measured the same way in one process.
 *   npm run bench:verify-svm -- [payments=1000]
 * Solana is measured twice: with the blockhash check answered in-process (litesvm port: the
 * service's own work) and through the JSON-RPC adapter to a local RPC on 127.0.0.1 (adds one HTTP
 * round trip, as in production where the RPC is remote).
 */

import { generatePrivateKey } from 'viem/accounts'
import { systemClock } from '../core/context.ts'
import { encodeBase64Json } from '../core/payments/challenge.ts'
import { exactEvmScheme } from '../core/payments/evm/scheme.ts'
import { createMemoryNonceStore } from '../core/payments/ledger/nonce-store.ts'
import { BASE_SEPOLIA, createPaymentConfig } from '../core/payments/networks.ts'
import { PRICES } from '../core/payments/pricing.ts'
import { type PaymentRequirement, paymentRequirementsFor } from '../core/payments/requirements.ts'
import { createSolanaJsonRpc, type SolanaRpc } from '../core/payments/svm/rpc.ts'
import { ownFeePayerSvmScheme } from '../core/payments/svm/scheme.ts'
import { createPaymentVerifier, type PaymentVerifier } from '../core/payments/verify-payment.ts'
import { toStandardRequirement } from '../core/payments/verify-result.ts'
import { signAuthorization } from '../test/support/chain/sign-authorization.ts'
import { startFakeSolanaRpcServer } from '../test/support/fakes/fake-solana-rpc-server.ts'
import { startSolanaTestChain } from '../test/support/solana/litesvm-chain.ts'
import {
  chainPaymentConfig,
  chainPaymentTransaction,
  svmPaymentHeader,
} from '../test/support/solana/svm-payment.ts'

const count = Math.min(Number(process.argv[2] ?? 1000), 10_000)
const PRICE = PRICES.sanctions_screen.x402.fresh
const resourceUrl = 'https://api.test/v1/sanctions/screen'

async function measure(verifier: PaymentVerifier, headers: string[], requirements: PaymentRequirement[]) {
  const samples: number[] = []
  let valid = 0
  for (const header of headers) {
    const t0 = performance.now()
    const result = await verifier.verify({ header }, requirements)
    samples.push(performance.now() - t0)
    if (result.isValid) valid++
  }
  samples.sort((a, b) => a - b)
  const pct = (p: number) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]!
  if (valid !== headers.length) throw new Error(`${headers.length - valid} payments did not verify`)
  return { payments: headers.length, medianMs: Number(pct(50).toFixed(3)), p99Ms: Number(pct(99).toFixed(3)) }
}

// EVM (the same method as bench/verify-evm.ts)
const EVM_ASSET = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const EVM_PAY_TO = '0x2222222222222222222222222222222222222222'
const evmConfig = createPaymentConfig({
  networks: [BASE_SEPOLIA],
  evmPayTo: EVM_PAY_TO,
  overrides: { [BASE_SEPOLIA]: { asset: EVM_ASSET, eip712: { name: 'USD Coin', version: '2' } } },
})
const evmRequirements = paymentRequirementsFor(evmConfig, {
  operationId: 'sanctions_screen',
  quality: 'fresh',
  resourceUrl,
})
const evmAccepted = toStandardRequirement(evmRequirements[0]!)
const evmPayers = Array.from({ length: 20 }, () => generatePrivateKey())
const evmHeaders: string[] = []
for (let i = 0; i < count + 50; i++) {
  const { signature, authorization } = await signAuthorization({
    key: evmPayers[i % evmPayers.length]!,
    to: EVM_PAY_TO,
    value: PRICE,
    asset: EVM_ASSET,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + 280),
  })
  evmHeaders.push(
    encodeBase64Json({ x402Version: 2, accepted: evmAccepted, payload: { signature, authorization } }),
  )
}

// Solana
const chain = await startSolanaTestChain({ payerCount: 20 })
const rpcServer = await startFakeSolanaRpcServer(chain.svm)
const svmConfig = chainPaymentConfig(chain)
const svmRequirements = paymentRequirementsFor(svmConfig, {
  operationId: 'sanctions_screen',
  quality: 'fresh',
  resourceUrl,
})
const svmAccepted = toStandardRequirement(svmRequirements[0]!) as unknown as Record<string, unknown>
const svmHeaders: string[] = []
for (let i = 0; i < 2 * (count + 50); i++) {
  const transaction = await chainPaymentTransaction(
    chain,
    chain.payers[i % chain.payers.length]!.signer,
    PRICE,
  )
  svmHeaders.push(svmPaymentHeader(svmAccepted, transaction))
}

const fresh = (solanaRpc?: SolanaRpc) =>
  createPaymentVerifier({
    clock: systemClock,
    schemes: solanaRpc
      ? {
          solana: ownFeePayerSvmScheme({
            config: svmConfig,
            nonceStore: createMemoryNonceStore({ clock: systemClock }),
            feePayer: chain.feePayer.address,
            rpc: solanaRpc,
          }),
        }
      : {
          evm: exactEvmScheme({
            config: evmConfig,
            nonceStore: createMemoryNonceStore({ clock: systemClock }),
          }),
        },
  })
const jsonRpc = createSolanaJsonRpc({ url: rpcServer.url })

// warm-up on payments that are then discarded
await measure(fresh(), evmHeaders.slice(0, 50), evmRequirements)
await measure(fresh(chain.rpc), svmHeaders.slice(0, 50), svmRequirements)
await measure(fresh(jsonRpc), svmHeaders.slice(count + 50, count + 100), svmRequirements)

const evm = await measure(fresh(), evmHeaders.slice(50), evmRequirements)
const svmInProcess = await measure(fresh(chain.rpc), svmHeaders.slice(50, count + 50), svmRequirements)
const svmJsonRpc = await measure(fresh(jsonRpc), svmHeaders.slice(count + 100), svmRequirements)
console.log(JSON.stringify({ evm, svmInProcess, svmJsonRpcLoopback: svmJsonRpc }, null, 2))
await rpcServer.close()
