import { type Address, formatUnits, getAddress } from 'viem'
import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { PRICES } from '../payments/pricing.ts'
import { evmAddressSchema } from '../validate/index.ts'
import { defineOperation } from './define.ts'
import { chainNotReady } from './readiness.ts'

/** spec: GET /v1/wallet/balance query. */
export const WalletBalanceInput = z
  .object({
    agent_id: evmAddressSchema.describe(
      'EVM address (0x + 40 hex) registered in the ERC-8004 Identity Registry: it owns an agent or is the agent wallet of one',
    ),
  })
  .strict()

/** spec: GET /v1/wallet/balance response 200. */
export const WalletBalanceResult = z
  .object({
    agent_id: z.string().describe('The address, EIP-55 checksummed'),
    chain: z.string().describe('base (chain id 8453), or base-sepolia where the service is configured so'),
    chain_id: z.number().int(),
    currency: z.literal('USDC'),
    balance_usdc: z.number().describe('USDC balance in USDC'),
    balance_raw: z.string().describe('USDC balance in 6-decimal units (integer string: exact beyond 2^53)'),
    last_updated: z.number().int().describe('Unix seconds of the block the balance was read at'),
    agent_ids: z.array(z.string()).describe('ERC-8004 agent ids the address owns or is the agent wallet of'),
  })
  .strict()

const CHAIN_NAMES: Record<number, string> = { 8453: 'base', 84532: 'base-sepolia' }

/**
 * spec: GET /v1/wallet/balance. The address must be registered in the ERC-8004 Identity Registry
 * (owner or agent wallet of at least one agent): 404 otherwise. A chain that cannot be read is
 * 503 (the call is not charged), never a zero balance.
 */
export const walletBalance = defineOperation({
  id: 'wallet_balance',
  http: { method: 'GET', path: '/v1/wallet/balance' },
  summary: 'USDC balance on Base of an address registered in the ERC-8004 Identity Registry',
  description:
    'agent_id is an EVM address that owns an ERC-8004 agent or is the agent wallet of one; any other address is 404. The balance is read at the latest block; last_updated is that block time. 503 (not charged) when the chain cannot be read.',
  input: WalletBalanceInput,
  output: WalletBalanceResult,
  price: PRICES.wallet_balance,
  essentials: {
    parts: [
      { part: 'chain', when: 'always', needs: 'BASE_RPC_URL (AGENT_CHAIN=base) or BASE_SEPOLIA_RPC_URL' },
    ],
    check: (_input, deps) => chainNotReady(deps),
  },
  ports: ['agentChain'],
  access: { sandbox: 'refuse' },
  openWorld: true,
  run: async (input, ctx) => {
    const reader = ctx.deps.agentChain
    if (!reader)
      throw new ServiceError(
        'unavailable',
        'the Base chain reader is not configured (BASE_RPC_URL or BASE_SEPOLIA_RPC_URL for AGENT_CHAIN)',
        {
          extra: { errorCode: 'chain_not_configured' },
        },
      )
    const address = getAddress(input.agent_id) as Address
    const { balances, identity } = await reader.readWallet({ wallet: address, reputation: false })
    if (identity.status !== 'ok' || balances.status !== 'ok') {
      const failed = identity.status !== 'ok' ? identity : balances
      throw new ServiceError(
        'unavailable',
        `the Base chain could not be read (${failed.status === 'ok' ? '' : failed.reason})`,
        {
          retryAfter: 30,
          extra: { errorCode: 'chain_unavailable' },
        },
      )
    }
    if (identity.data.wallet_agent_ids.length === 0)
      throw new ServiceError(
        'not_found',
        `${address} is not registered in the ERC-8004 Identity Registry (it owns no agent and is the agent wallet of none)`,
        { extra: { errorCode: 'agent_not_registered' } },
      )
    return {
      agent_id: address,
      chain: CHAIN_NAMES[reader.chainId] ?? `eip155:${reader.chainId}`,
      chain_id: reader.chainId,
      currency: 'USDC' as const,
      balance_usdc: Number(formatUnits(balances.data.usdc_raw, 6)),
      balance_raw: balances.data.usdc_raw.toString(),
      last_updated: balances.data.block_timestamp,
      agent_ids: identity.data.wallet_agent_ids,
    }
  },
})
