import { createWalletClient, http, parseSignature, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LocalChain, startLocalChain, type TestUsdc } from './local-chain.ts'

const TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

describe('local chain with TestUSDC', () => {
  let chain: LocalChain
  let usdc: TestUsdc

  beforeAll(async () => {
    chain = await startLocalChain({ chainId: 84532 })
    usdc = await chain.deployUsdc()
  })
  afterAll(async () => {
    await chain?.stop()
  })

  it('serves JSON-RPC over HTTP on 127.0.0.1 with the requested chain id', async () => {
    expect(chain.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(await chain.publicClient.getChainId()).toBe(84532)
    expect(chain.accounts.length).toBeGreaterThanOrEqual(3)
  })

  it('exposes the USDC metadata x402 relies on', async () => {
    const read = (functionName: string) =>
      chain.publicClient.readContract({ address: usdc.address, abi: usdc.abi, functionName })
    expect(await read('name')).toBe('USD Coin')
    expect(await read('version')).toBe('2')
    expect(await read('decimals')).toBe(6)
  })

  it('moves funds with a signed TransferWithAuthorization and refuses the same nonce twice', async () => {
    const [, payerKeys, payee, relayerKeys] = chain.accounts
    const payer = privateKeyToAccount(payerKeys!.privateKey)
    await usdc.mint(payer.address, 1_000_000n)
    const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
    const message = {
      from: payer.address,
      to: payee!.address,
      value: 250_000n,
      validAfter: 0n,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 120),
      nonce,
    }
    const signature = await payer.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: 84532, verifyingContract: usdc.address },
      types: TYPES,
      primaryType: 'TransferWithAuthorization',
      message,
    })
    const { v, r, s } = parseSignature(signature)
    const relayer = createWalletClient({
      account: privateKeyToAccount(relayerKeys!.privateKey),
      chain: chain.chain,
      transport: http(chain.rpcUrl),
    })
    const before = await usdc.balanceOf(payee!.address)
    const args = [
      message.from,
      message.to,
      message.value,
      message.validAfter,
      message.validBefore,
      nonce,
    ] as const
    const hash = await relayer.writeContract({
      address: usdc.address,
      abi: usdc.abi,
      functionName: 'transferWithAuthorization',
      args: [...args, Number(v), r, s],
    })
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(await usdc.balanceOf(payee!.address)).toBe(before + 250_000n)
    expect(await usdc.balanceOf(payer.address)).toBe(750_000n)
    expect(await usdc.authorizationState(payer.address, nonce)).toBe(true)

    await expect(
      chain.publicClient.simulateContract({
        account: relayer.account,
        address: usdc.address,
        abi: usdc.abi,
        functionName: 'transferWithAuthorization',
        args: [...args, signature],
      }),
    ).rejects.toThrow(/authorization is used or canceled/)
  })
})
