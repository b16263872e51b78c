import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import {
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
  toHex,
} from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
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

/** Anvil's well-known development mnemonic: the same funded accounts on every start. */
const DEV_MNEMONIC = 'test test test test test test test test test test test junk'

/**
 * The anvil binary of the `@foundry-rs/anvil` devDependency (its platform package), or
 * `ANVIL_PATH`, or `anvil` on the PATH (a Foundry install).
 */
function anvilBinary(): string {
  if (process.env.ANVIL_PATH) return process.env.ANVIL_PATH
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string]
  try {
    const manifest = createRequire(import.meta.url).resolve(
      `@foundry-rs/anvil-${process.platform}-${arch}/package.json`,
    )
    const binary = path.join(
      path.dirname(manifest),
      'bin',
      process.platform === 'win32' ? 'anvil.exe' : 'anvil',
    )
    if (existsSync(binary)) return binary
  } catch {
    // no platform package: a Foundry install on the PATH
  }
  return 'anvil'
}

/** Starts anvil on a free loopback port; resolves with the port once it listens. */
async function startAnvil(
  chainId: number,
  accountCount: number,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    anvilBinary(),
    ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId), '--accounts', String(accountCount)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const listening = /Listening on 127\.0\.0\.1:(\d+)/.exec(output)
      if (listening) {
        child.stdout?.off('data', onData)
        child.stdout?.resume()
        resolve(Number(listening[1]))
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once('error', reject)
    child.once('exit', (code) =>
      reject(new Error(`anvil exited (${code}) before listening: ${output.slice(-2000)}`)),
    )
  })
  child.removeAllListeners('exit')
  return { child, port }
}

/**
 * Starts a local EVM node (anvil, from Foundry) as an HTTP JSON-RPC server on 127.0.0.1 (a free
 * port) with deterministic funded accounts, for tests that must sign, verify and settle against a
 * real EVM. Each transaction is mined as it arrives (automine), like a chain that confirms at
 * once. Test-only: production code never imports test/support.
 */
export async function startLocalChain(options: LocalChainOptions = {}): Promise<LocalChain> {
  const chainId = options.chainId ?? 84532
  const accountCount = options.accountCount ?? 6
  const { child, port } = await startAnvil(chainId, accountCount)
  const rpcUrl = `http://127.0.0.1:${port}`
  const accounts: LocalAccount[] = Array.from({ length: accountCount }, (_, addressIndex) => {
    const privateKey = toHex(mnemonicToAccount(DEV_MNEMONIC, { addressIndex }).getHdKey().privateKey!)
    return { address: privateKeyToAccount(privateKey).address, privateKey }
  })
  const chain = defineChain({
    id: chainId,
    name: `local-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) }) as PublicClient
  const deployer = accounts[0]
  if (!deployer) throw new Error('the local chain started without accounts')

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
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
    },
  }
}
