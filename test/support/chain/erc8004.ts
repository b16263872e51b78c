import {
  type Abi,
  type Address,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  parseEventLogs,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { compileErc8004 } from './compile-erc8004.ts'
import type { LocalChain } from './local-chain.ts'

/** The ERC-8004 Identity and Reputation registries deployed on a local chain, behind ERC1967 proxies. */
export interface LocalErc8004 {
  identity: Address
  reputation: Address
  identityAbi: Abi
  reputationAbi: Abi
  /** `register(agentURI)` from `ownerKey`; returns the new agentId (from the Registered event). */
  register(ownerKey: Hex, agentUri?: string): Promise<bigint>
  /** `setAgentWallet` by the owner, with the EIP-712 consent signature of the new wallet. */
  setAgentWallet(ownerKey: Hex, agentId: bigint, walletKey: Hex): Promise<void>
  /** `giveFeedback(agentId, value, decimals, tag1, tag2, endpoint, uri, hash)` from a client. */
  giveFeedback(
    clientKey: Hex,
    agentId: bigint,
    feedback: { value: bigint; decimals?: number; tag1?: string; tag2?: string },
  ): Promise<void>
  /** ERC-721 transfer of an agent (clears its agent wallet, as the reference contract does). */
  transfer(ownerKey: Hex, to: Address, agentId: bigint): Promise<void>
}

/**
 * Deploys the vendored reference contracts the way the reference repository's tests do: an
 * ERC1967Proxy over HardhatMinimalUUPS (which makes the deployer the owner), then
 * `upgradeToAndCall` to the real implementation with its `initialize`.
 */
export async function deployErc8004(chain: LocalChain): Promise<LocalErc8004> {
  const compiled = await compileErc8004()
  const deployerKey = chain.accounts[0]!.privateKey
  const walletOf = (key: Hex) =>
    createWalletClient({
      account: privateKeyToAccount(key),
      chain: chain.chain,
      transport: http(chain.rpcUrl),
    })
  const deployer = walletOf(deployerKey)
  const confirm = async (hash: Hex) => {
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, timeout: 20_000 })
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`)
    return receipt
  }
  const deploy = async (name: keyof typeof compiled, args: unknown[] = []) => {
    const { abi, bytecode } = compiled[name]
    const receipt = await confirm(await deployer.deployContract({ abi, bytecode, args }))
    if (!receipt.contractAddress) throw new Error(`${name} deployment produced no address`)
    return receipt.contractAddress
  }
  const minimal = compiled.HardhatMinimalUUPS.abi
  const deployProxy = async (implementation: keyof typeof compiled, initData: Hex, bootstrapArg: Address) => {
    const minimalImpl = await deploy('HardhatMinimalUUPS')
    const proxy = await deploy('ERC1967Proxy', [
      minimalImpl,
      encodeFunctionData({ abi: minimal, functionName: 'initialize', args: [bootstrapArg] }),
    ])
    const real = await deploy(implementation)
    await confirm(
      await deployer.writeContract({
        address: proxy,
        abi: minimal,
        functionName: 'upgradeToAndCall',
        args: [real, initData],
      }),
    )
    return proxy
  }
  const identityAbi = compiled.IdentityRegistryUpgradeable.abi
  const reputationAbi = compiled.ReputationRegistryUpgradeable.abi
  const zero = '0x0000000000000000000000000000000000000000'
  const identity = await deployProxy(
    'IdentityRegistryUpgradeable',
    encodeFunctionData({ abi: identityAbi, functionName: 'initialize', args: [] }),
    zero,
  )
  const reputation = await deployProxy(
    'ReputationRegistryUpgradeable',
    encodeFunctionData({ abi: reputationAbi, functionName: 'initialize', args: [identity] }),
    identity,
  )

  return {
    identity,
    reputation,
    identityAbi,
    reputationAbi,
    async register(ownerKey, agentUri = 'https://agent.example/agent.json') {
      const receipt = await confirm(
        await walletOf(ownerKey).writeContract({
          address: identity,
          abi: identityAbi,
          functionName: 'register',
          args: [agentUri],
        }),
      )
      const [event] = parseEventLogs({ abi: identityAbi, logs: receipt.logs, eventName: 'Registered' })
      const agentId = (event as unknown as { args: { agentId: bigint } } | undefined)?.args.agentId
      if (agentId === undefined) throw new Error('no Registered event')
      return agentId
    },
    async setAgentWallet(ownerKey, agentId, walletKey) {
      const owner = privateKeyToAccount(ownerKey).address
      const wallet = privateKeyToAccount(walletKey)
      const block = await chain.publicClient.getBlock()
      const deadline = block.timestamp + 120n
      const signature = await wallet.signTypedData({
        domain: {
          name: 'ERC8004IdentityRegistry',
          version: '1',
          chainId: chain.chainId,
          verifyingContract: identity,
        },
        types: {
          AgentWalletSet: [
            { name: 'agentId', type: 'uint256' },
            { name: 'newWallet', type: 'address' },
            { name: 'owner', type: 'address' },
            { name: 'deadline', type: 'uint256' },
          ],
        },
        primaryType: 'AgentWalletSet',
        message: { agentId, newWallet: wallet.address, owner, deadline },
      })
      await confirm(
        await walletOf(ownerKey).writeContract({
          address: identity,
          abi: identityAbi,
          functionName: 'setAgentWallet',
          args: [agentId, wallet.address, deadline, signature],
        }),
      )
    },
    async giveFeedback(clientKey, agentId, feedback) {
      await confirm(
        await walletOf(clientKey).writeContract({
          address: reputation,
          abi: reputationAbi,
          functionName: 'giveFeedback',
          args: [
            agentId,
            feedback.value,
            feedback.decimals ?? 0,
            feedback.tag1 ?? '',
            feedback.tag2 ?? '',
            '',
            '',
            `0x${'00'.repeat(32)}`,
          ],
        }),
      )
    },
    async transfer(ownerKey, to, agentId) {
      const from = privateKeyToAccount(ownerKey).address
      await confirm(
        await walletOf(ownerKey).writeContract({
          address: identity,
          abi: identityAbi,
          functionName: 'transferFrom',
          args: [from, to, agentId],
        }),
      )
    },
  }
}
