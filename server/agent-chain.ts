import type { Address } from 'viem'
import type { Clock } from '../core/context.ts'
import { AGENT_CHAINS, type AgentChainReader, createAgentChainReader } from '../core/sources/agent-chain.ts'
import type { Config } from './config.ts'

type Log = (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void

export interface AgentChain {
  reader?: AgentChainReader
  registries: { identity: string; reputation: string }
}

/**
 * The Base chain reader of agent checks and wallet balances, from AGENT_CHAIN and its RPC URL
 * (BASE_RPC_URL for base, BASE_SEPOLIA_RPC_URL for base-sepolia). At start-up the RPC's chain id
 * is checked: a different chain stops start-up naming the variable; an RPC that does not answer
 * is only a warning (the parts are `unavailable` until it does).
 */
export async function buildAgentChain(config: Config, clock: Clock, log: Log): Promise<AgentChain> {
  const preset = AGENT_CHAINS[config.AGENT_CHAIN]
  const registries = {
    identity: config.ERC8004_IDENTITY_REGISTRY ?? preset.identityRegistry,
    reputation: config.ERC8004_REPUTATION_REGISTRY ?? preset.reputationRegistry,
  }
  const variable = config.AGENT_CHAIN === 'base' ? 'BASE_RPC_URL' : 'BASE_SEPOLIA_RPC_URL'
  const rpcUrl = config[variable]
  if (!rpcUrl) {
    log('warn', `${variable} is not set: agent checks report balance, identity and reputation unavailable`)
    return { registries }
  }
  const reader = createAgentChainReader({
    rpcUrl,
    chainId: preset.chainId,
    usdc: (config.AGENT_USDC_ADDRESS ?? preset.usdc) as Address,
    identityRegistry: registries.identity as Address,
    reputationRegistry: registries.reputation as Address,
    fromBlock: BigInt(config.ERC8004_FROM_BLOCK),
    timeoutMs: config.SOURCE_TIMEOUT_MS,
    clock,
  })
  try {
    await reader.verifyChainId()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (message.includes('expected'))
      throw new Error(`invalid configuration:\n  ${variable}: ${message} (AGENT_CHAIN=${config.AGENT_CHAIN})`)
    log(
      'warn',
      `${variable} did not answer the chain id check; agent checks report the chain unavailable`,
      message,
    )
  }
  return { reader, registries }
}
