import ganache from 'ganache'
import {
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type CompiledContract, compileTestUsdc } from './compile-test-usdc.ts'

export interface LocalAccount {
  address: Address
  privateKey: Hex
}

export interface LocalChainOptions {
  /** Defaults to 84532 (Base Sepolia) so official x402 clients, which know that id, sign for it. */
  chainId?: number
  /** Funded accounts (1000 ETH each); account 0 deploys and mints. Default 6. */
  accountCount?: number
}

/** A deployed TestUSDC (EIP-3009, 6 decimals, domain "USD Coin" / "2"). */
export interface TestUsdc {
  address: Address
  abi: CompiledContract['abi']
  /** Mints micro-USDC to an address (as account 0, the minter) and waits for the receipt. */
  mint(to: Address, amount: bigint): Promise<void>
  balanceOf(account: Address): Promise<bigint>
  authorizationState(authorizer: Address, nonce: Hex): Promise<boolean>
}

export interface LocalChain {
  /** `http://127.0.0.1:<port>`: a real JSON-RPC server. */
  rpcUrl: string
  chainId: number
  chain: Chain
  accounts: LocalAccount[]
  publicClient: PublicClient
  deployUsdc(): Promise<TestUsdc>
  stop(): Promise<void>
}

/**
 * Starts ganache as an HTTP JSON-RPC server on 127.0.0.1 (a free port) with deterministic funded
 * accounts, for tests that must sign, verify and settle against a real EVM. Test-only: production
 * code never imports test/support.
 */
export async function startLocalChain(options: LocalChainOptions = {}): Promise<LocalChain> {
  const chainId = options.chainId ?? 84532
  const server = ganache.server({
    chain: { chainId, hardfork: 'shanghai' },
    wallet: { deterministic: true, totalAccounts: options.accountCount ?? 6 },
    logging: { quiet: true },
  })
  await server.listen(0, '127.0.0.1')
  const rpcUrl = `http://127.0.0.1:${server.address().port}`
  const accounts: LocalAccount[] = Object.values(server.provider.getInitialAccounts()).map((account) => ({
    address: privateKeyToAccount(account.secretKey as Hex).address,
    privateKey: account.secretKey as Hex,
  }))
  const chain = defineChain({
    id: chainId,
    name: `local-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) }) as PublicClient
  const deployer = accounts[0]
  if (!deployer) throw new Error('ganache started without accounts')

  async function deployUsdc(): Promise<TestUsdc> {
    const { abi, bytecode } = await compileTestUsdc()
    const wallet = createWalletClient({
      account: privateKeyToAccount(deployer!.privateKey),
      chain,
      transport: http(rpcUrl),
    })
    const hash = await wallet.deployContract({ abi, bytecode })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 })
    const address = receipt.contractAddress
    if (!address) throw new Error('TestUSDC deployment produced no contract address')
    return {
      address,
      abi,
      async mint(to, amount) {
        const tx = await wallet.writeContract({ address, abi, functionName: 'mint', args: [to, amount] })
        const minted = await publicClient.waitForTransactionReceipt({ hash: tx, timeout: 10_000 })
        if (minted.status !== 'success') throw new Error('TestUSDC mint reverted')
      },
      async balanceOf(account) {
        return (await publicClient.readContract({
          address,
          abi,
          functionName: 'balanceOf',
          args: [account],
        })) as bigint
      },
      async authorizationState(authorizer, nonce) {
        return (await publicClient.readContract({
          address,
          abi,
          functionName: 'authorizationState',
          args: [authorizer, nonce],
        })) as boolean
      },
    }
  }

  return {
    rpcUrl,
    chainId,
    chain,
    accounts,
    publicClient,
    deployUsdc,
    stop: () => server.close(),
  }
}
