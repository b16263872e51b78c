import { type Address, createPublicClient, erc20Abi, http } from 'viem'
import { networksOfKind, type PaymentConfig } from '../networks.ts'

/**
 * Reads the USDC the service's payTo holds on the first configured EVM network (financial
 * health, operator view). Undefined when no EVM network has an RPC URL to ask.
 */
export function createTreasuryReader(
  config: PaymentConfig,
  rpcUrls: Readonly<Record<string, string>>,
  timeoutMs = 5000,
): (() => Promise<bigint>) | undefined {
  const network = networksOfKind(config, 'evm')[0]
  const rpcUrl = network ? rpcUrls[network.network] : undefined
  if (!network || !rpcUrl) return undefined
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs }) })
  return () =>
    client.readContract({
      address: network.asset as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [network.payTo as Address],
    })
}
