import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { deployErc8004, type LocalErc8004 } from './erc8004.ts'
import { type LocalPaymentSetup, localX402Env, startLocalPaymentSetup } from './payment-fixtures.ts'

/**
 * One local chain (posing as Base Sepolia) for agent checks: TestUSDC, the ERC-8004 reference
 * registries, x402 payers, and a small world of agents:
 * - `clean`: agent registered by `clean.owner`, whose agent wallet is `clean.wallet` (funded with
 *   USDC and ETH), with feedback from three clients;
 * - `other`: agent registered by another owner (a wallet claiming it controls someone else's agent);
 * - `unregistered`: a funded wallet with no agent;
 * - `empty`: a fresh address with nothing and no history.
 */
export interface AgentWorld {
  setup: LocalPaymentSetup
  registries: LocalErc8004
  clean: { agentId: bigint; owner: Address; wallet: Address; walletKey: Hex }
  other: { agentId: bigint; owner: Address }
  unregistered: Address
  empty: Address
  /** Payers left for x402 calls. */
  x402PayerKeys: Hex[]
  /** Service environment: x402 on the local chain and the agent chain reader on it too. */
  env(): Record<string, string>
  stop(): Promise<void>
}

/** USDC each payer (and so the clean agent wallet) holds: 50 USDC. */
export const AGENT_WORLD_FUNDS = 50_000_000n

export async function startAgentWorld(): Promise<AgentWorld> {
  const setup = await startLocalPaymentSetup({ fundedAmount: AGENT_WORLD_FUNDS, accountCount: 14 })
  try {
    const registries = await deployErc8004(setup.chain)
    const [ownerKey, walletKey, client1, client2, client3, otherOwnerKey, unregisteredKey, ...rest] =
      setup.payerKeys
    if (!ownerKey || !walletKey || !client1 || !client2 || !client3 || !otherOwnerKey || !unregisteredKey)
      throw new Error('agent world needs more accounts')
    const agentId = await registries.register(ownerKey)
    await registries.setAgentWallet(ownerKey, agentId, walletKey)
    await registries.giveFeedback(client1, agentId, { value: 95n, tag1: 'reliability', tag2: 'x402' })
    await registries.giveFeedback(client2, agentId, { value: 8750n, decimals: 2, tag1: 'reliability' })
    await registries.giveFeedback(client3, agentId, { value: 70n, tag1: 'speed' })
    await registries.giveFeedback(client1, agentId, { value: 90n, tag1: 'speed' })
    const otherId = await registries.register(otherOwnerKey)
    const address = (key: Hex) => privateKeyToAccount(key).address
    const empty = privateKeyToAccount(`0x${'7'.repeat(63)}1` as Hex).address
    return {
      setup,
      registries,
      clean: { agentId, owner: address(ownerKey), wallet: address(walletKey), walletKey },
      other: { agentId: otherId, owner: address(otherOwnerKey) },
      unregistered: address(unregisteredKey),
      empty,
      x402PayerKeys: rest,
      env: () => ({
        ...localX402Env(setup),
        AGENT_CHAIN: 'base-sepolia',
        AGENT_USDC_ADDRESS: setup.usdc.address,
        ERC8004_IDENTITY_REGISTRY: registries.identity,
        ERC8004_REPUTATION_REGISTRY: registries.reputation,
      }),
      stop: () => setup.stop(),
    }
  } catch (error) {
    await setup.stop()
    throw error
  }
}
