import type { Hex } from 'viem'
import type { PaymentConfig } from '../../../core/payments/networks.ts'
import { BASE_SEPOLIA, createPaymentConfig } from '../../../core/payments/networks.ts'
import { type LocalChain, startLocalChain, type TestUsdc } from './local-chain.ts'

/** A local chain posing as Base Sepolia, a deployed TestUSDC, funded payers and a payment config for it. */
export interface LocalPaymentSetup {
  chain: LocalChain
  usdc: TestUsdc
  config: PaymentConfig
  /** Receives payments (account 1). */
  payTo: Hex
  /** Sends settlement transactions (account 2). */
  operatorKey: Hex
  /** Funded payers (accounts 3+), each holding `fundedAmount` micro-USDC. */
  payerKeys: Hex[]
  fundedAmount: bigint
  stop(): Promise<void>
}

/**
 * Starts the local chain (anvil) with chain id 84532 and points the real `eip155:84532` network at the local
 * TestUSDC, so official x402 clients sign for a network they know and settlement lands locally.
 */
export async function startLocalPaymentSetup(
  options: { fundedAmount?: bigint; accountCount?: number } = {},
): Promise<LocalPaymentSetup> {
  const chain = await startLocalChain({ chainId: 84532, accountCount: options.accountCount ?? 6 })
  try {
    const usdc = await chain.deployUsdc()
    const [, payTo, operator, ...payers] = chain.accounts
    if (!payTo || !operator || payers.length === 0) throw new Error('local chain has too few accounts')
    const fundedAmount = options.fundedAmount ?? 10_000_000n
    for (const payer of payers) await usdc.mint(payer.address, fundedAmount)
    const config = createPaymentConfig({
      networks: [BASE_SEPOLIA],
      evmPayTo: payTo.address,
      overrides: { [BASE_SEPOLIA]: { asset: usdc.address, eip712: { name: 'USD Coin', version: '2' } } },
    })
    return {
      chain,
      usdc,
      config,
      payTo: payTo.address,
      operatorKey: operator.privateKey,
      payerKeys: payers.map((p) => p.privateKey),
      fundedAmount,
      stop: () => chain.stop(),
    }
  } catch (error) {
    await chain.stop()
    throw error
  }
}

/** Service configuration (environment form) that takes x402 payments on the local chain. */
export function localX402Env(
  setup: LocalPaymentSetup,
  options: { settleOnChain?: boolean } = {},
): Record<string, string> {
  return {
    X402_PAY_TO: setup.payTo,
    X402_NETWORKS: BASE_SEPOLIA,
    X402_NETWORK_OVERRIDES: JSON.stringify({
      [BASE_SEPOLIA]: { asset: setup.usdc.address, eip712: { name: 'USD Coin', version: '2' } },
    }),
    ...(options.settleOnChain === false
      ? {}
      : { BASE_SEPOLIA_RPC_URL: setup.chain.rpcUrl, SETTLEMENT_PRIVATE_KEY: setup.operatorKey }),
  }
}
