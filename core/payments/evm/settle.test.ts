import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { createWalletClient, type Hex, http, parseSignature } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type LocalPaymentSetup,
  startLocalPaymentSetup,
} from '../../../test/support/chain/payment-fixtures.ts'
import { signAuthorization } from '../../../test/support/chain/sign-authorization.ts'
import { openTestDatabase } from '../../../test/support/database.ts'
import { systemClock } from '../../context.ts'
import { createMemoryNonceStore } from '../ledger/nonce-store.ts'
import { createSettlementService } from '../ledger/settle-and-retry.ts'
import { createSettlementLedger } from '../ledger/settlement-ledger.ts'
import { buildPaymentRequirements, type PaymentRequirement } from '../requirements.ts'
import type { VerifiedPayment } from '../verify-result.ts'
import { exactEvmScheme } from './scheme.ts'
import { createOnChainSettler } from './settle.ts'
import { verifyEvmPayment } from './verify.ts'

let setup: LocalPaymentSetup
let requirements: PaymentRequirement[]

beforeAll(async () => {
  setup = await startLocalPaymentSetup()
  requirements = buildPaymentRequirements(setup.config, {
    amount: 110_000n,
    resourceUrl: 'http://127.0.0.1/v1/wallet/balance',
    description: 'wallet balance',
  })
})
afterAll(async () => {
  await setup?.stop()
})

/** A new funded operator key that has sent `count` transactions already (outside any settler). */
async function operatorThatSent(count: number): Promise<Hex> {
  const operatorKey = generatePrivateKey()
  const operator = privateKeyToAccount(operatorKey)
  const funder = createWalletClient({
    account: privateKeyToAccount(setup.chain.accounts[0]!.privateKey),
    chain: setup.chain.chain,
    transport: http(setup.chain.rpcUrl),
  })
  await setup.chain.publicClient.waitForTransactionReceipt({
    hash: await funder.sendTransaction({ to: operator.address, value: 10n ** 18n }),
  })
  const self = createWalletClient({
    account: operator,
    chain: setup.chain.chain,
    transport: http(setup.chain.rpcUrl),
  })
  for (let i = 0; i < count; i++) {
    await setup.chain.publicClient.waitForTransactionReceipt({
      hash: await self.sendTransaction({ to: operator.address, value: 0n }),
    })
  }
  return operatorKey
}

/** Signs and verifies a payment from `key`, returning the VerifiedPayment settlement receives. */
async function verifiedPayment(key: Hex, value = 110_000n): Promise<VerifiedPayment> {
  const { signature, authorization: wire } = await signAuthorization({
    key,
    to: setup.payTo,
    value,
    asset: setup.usdc.address,
  })
  const result = await verifyEvmPayment(
    { config: setup.config, nonceStore: createMemoryNonceStore({ clock: systemClock }) },
    {
      payment: {
        x402Version: 1,
        shape: 'v1',
        scheme: 'exact',
        network: 'base-sepolia',
        payload: { signature, authorization: wire },
      },
      requirements,
      now: new Date(),
    },
  )
  if (!result.isValid) throw new Error(`test payment did not verify: ${result.invalidReason}`)
  return result
}

const settlerFor = (rpcUrl: string) =>
  createOnChainSettler({
    privateKey: setup.operatorKey,
    rpcUrls: { 'eip155:84532': rpcUrl },
    receiptTimeoutMs: 5_000,
    rpcTimeoutMs: 2_000,
  })

/**
 * A JSON-RPC proxy on 127.0.0.1 in front of a node: `reply` gets each call and a function that
 * forwards it to the node, and returns the JSON to send back, or undefined to never answer.
 */
async function startRpcProxy(
  nodeUrl: string,
  reply: (
    call: { id: number; method: string },
    forward: () => Promise<{ result?: string; error?: { message: string } }>,
  ) => Promise<unknown>,
): Promise<{ url: string; close(): void }> {
  const server = createHttpServer(async (req, res) => {
    let raw = ''
    for await (const chunk of req) raw += chunk
    const forward = async () => {
      const upstream = await fetch(nodeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      })
      return (await upstream.json()) as { result?: string; error?: { message: string } }
    }
    const answer = await reply(JSON.parse(raw) as { id: number; method: string }, forward)
    if (answer === undefined) return
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(answer))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => server.close(),
  }
}

describe('createOnChainSettler', () => {
  it('moves exactly the authorized amount from payer to payTo and returns the transaction', async () => {
    const payment = await verifiedPayment(setup.payerKeys[0]!, 123_456n)
    const payer = privateKeyToAccount(setup.payerKeys[0]!).address
    const before = [await setup.usdc.balanceOf(payer), await setup.usdc.balanceOf(setup.payTo)]
    const result = await settlerFor(setup.chain.rpcUrl).settle(payment)
    expect(result).toMatchObject({ success: true, payer, amount: '123456', network: 'eip155:84532' })
    const receipt = await setup.chain.publicClient.getTransactionReceipt({ hash: result.transaction as Hex })
    expect(receipt.status).toBe('success')
    expect(await setup.usdc.balanceOf(payer)).toBe(before[0]! - 123_456n)
    expect(await setup.usdc.balanceOf(setup.payTo)).toBe(before[1]! + 123_456n)
  })

  it('reports a second settlement of the same authorization as nonce_replay and moves nothing', async () => {
    const payment = await verifiedPayment(setup.payerKeys[1]!)
    const settler = settlerFor(setup.chain.rpcUrl)
    expect((await settler.settle(payment)).success).toBe(true)
    const balance = await setup.usdc.balanceOf(setup.payTo)
    expect(await settler.settle(payment)).toMatchObject({
      success: false,
      errorReason: 'nonce_replay',
      retryable: false,
    })
    expect(await setup.usdc.balanceOf(setup.payTo)).toBe(balance)
  })

  it('reports a payer without enough USDC as insufficient_funds', async () => {
    const payment = await verifiedPayment(generatePrivateKey())
    expect(await settlerFor(setup.chain.rpcUrl).settle(payment)).toMatchObject({
      success: false,
      errorReason: 'insufficient_funds',
      retryable: false,
    })
  })

  it('reports an unreachable RPC as a retryable failure instead of throwing', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as { port: number }).port
    await new Promise((resolve) => closed.close(resolve))
    const payment = await verifiedPayment(setup.payerKeys[2]!)
    const result = await settlerFor(`http://127.0.0.1:${port}`).settle(payment)
    // Down before anything was sent: certain that no transaction can move money later.
    expect(result).toMatchObject({
      success: false,
      errorReason: 'settlement_failed',
      retryable: true,
      submitted: false,
    })
  })

  it('tells whether an authorization is still unused on chain', async () => {
    const payment = await verifiedPayment(setup.payerKeys[2]!)
    const settler = settlerFor(setup.chain.rpcUrl)
    expect(await settler.authorizationUsed(payment)).toBe(false)
    expect((await settler.settle(payment)).success).toBe(true)
    expect(await settler.authorizationUsed(payment)).toBe(true)
  })

  it('refuses a network it has no RPC for as unsupported_network', async () => {
    const payment = await verifiedPayment(setup.payerKeys[2]!)
    const settler = createOnChainSettler({ privateKey: setup.operatorKey, rpcUrls: {} })
    expect(await settler.settle(payment)).toMatchObject({
      success: false,
      errorReason: 'unsupported_network',
    })
  })

  it('settles concurrent payments from one operator through two settlers: every one lands, one nonce each', async () => {
    // Two settlers of one operator in one process (the request path and the retry worker, or a
    // service restarted in the same process) share the account's nonce sequence.
    const settlers = [settlerFor(setup.chain.rpcUrl), settlerFor(setup.chain.rpcUrl)]
    const operator = privateKeyToAccount(setup.operatorKey).address
    const noncesBefore = await setup.chain.publicClient.getTransactionCount({ address: operator })
    const payments = await Promise.all(
      Array.from({ length: 40 }, (_, i) => verifiedPayment(setup.payerKeys[i % setup.payerKeys.length]!)),
    )
    const payTo = await setup.usdc.balanceOf(setup.payTo)
    const results = await Promise.all(payments.map((p, i) => settlers[i % 2]!.settle(p)))
    expect(results.filter((r) => !r.success)).toEqual([])
    expect(await setup.usdc.balanceOf(setup.payTo)).toBe(payTo + 40n * 110_000n)
    // No transaction wasted: one nonce per settlement.
    expect(await setup.chain.publicClient.getTransactionCount({ address: operator })).toBe(noncesBefore + 40)
  })

  it('reports an operator account that cannot pay gas as retryable and not sent, the authorization still unused', async () => {
    const payment = await verifiedPayment(setup.payerKeys[2]!)
    const broke = createOnChainSettler({
      privateKey: generatePrivateKey(),
      rpcUrls: { 'eip155:84532': setup.chain.rpcUrl },
      receiptTimeoutMs: 5_000,
      rpcTimeoutMs: 2_000,
    })
    // The service's own failure, not the payer's: never a payment refusal (nonce_replay,
    // insufficient_funds), and certain that nothing went out.
    expect(await broke.settle(payment)).toMatchObject({
      success: false,
      errorReason: 'settlement_failed',
      retryable: true,
      submitted: false,
    })
    expect(await broke.authorizationUsed(payment)).toBe(false)
  })

  it('reports a send that gets no answer as settlement_timeout with its hash, and the next send lands', async () => {
    // A JSON-RPC proxy that passes the first transaction on to the node but never answers it.
    let swallowed = 0
    const proxy = await startRpcProxy(setup.chain.rpcUrl, async (call, forward) => {
      const answer = await forward()
      return call.method === 'eth_sendRawTransaction' && swallowed++ === 0 ? undefined : answer
    })
    try {
      const settler = createOnChainSettler({
        privateKey: setup.operatorKey,
        rpcUrls: { 'eip155:84532': proxy.url },
        receiptTimeoutMs: 5_000,
        rpcTimeoutMs: 1_000,
      })
      const first = await verifiedPayment(setup.payerKeys[0]!)
      const second = await verifiedPayment(setup.payerKeys[1]!)
      // Whichever send reaches the proxy first is the one swallowed: under load it may be either.
      const results = await Promise.all([settler.settle(first), settler.settle(second)])
      const lost = results.find((result) => !result.success)!
      const next = results.find((result) => result !== lost)!
      expect(results.filter((result) => result.success)).toHaveLength(1)
      expect(lost).toMatchObject({ success: false, errorReason: 'settlement_timeout', retryable: true })
      expect(lost.submitted).not.toBe(false)
      // The hash it reports is the transaction the node got: the ledger can follow it up.
      expect(await settler.transactionStatus('eip155:84532', lost.transaction as Hex)).toBe('success')
      expect(next).toMatchObject({ success: true })
    } finally {
      proxy.close()
    }
  })

  it('sends again with a fresh nonce when the node refuses the operator nonce as already used', async () => {
    // A JSON-RPC proxy to the local chain whose first answer for the operator's nonce is one too
    // low, as after a send that timed out here but reached the node: the node refuses that send.
    let staleAnswers = 1
    const refused: string[] = []
    const proxy = await startRpcProxy(setup.chain.rpcUrl, async (call, forward) => {
      const answer = await forward()
      if (call.method === 'eth_getTransactionCount' && staleAnswers-- > 0 && answer.result) {
        answer.result = `0x${(BigInt(answer.result) - 1n).toString(16)}`
      }
      if (call.method === 'eth_sendRawTransaction' && answer.error) refused.push(answer.error.message)
      return answer
    })
    try {
      // A new operator that has sent one transaction already (outside any settler), so the nonce
      // one lower than its count is a used one.
      const operatorKey = await operatorThatSent(1)
      const settler = createOnChainSettler({
        privateKey: operatorKey,
        rpcUrls: { 'eip155:84532': proxy.url },
        receiptTimeoutMs: 5_000,
        rpcTimeoutMs: 2_000,
      })
      const payment = await verifiedPayment(setup.payerKeys[0]!, 111_111n)
      const payer = privateKeyToAccount(setup.payerKeys[0]!).address
      const before = await setup.usdc.balanceOf(payer)
      const result = await settler.settle(payment)
      expect(refused).toEqual([expect.stringMatching(/nonce too low/i)])
      expect(result).toMatchObject({ success: true, amount: '111111' })
      expect(await setup.usdc.balanceOf(payer)).toBe(before - 111_111n)
    } finally {
      proxy.close()
    }
  })

  it('settles concurrent payments through a node whose pending count lags its pool', async () => {
    // Under load a node can answer a pending transaction count that misses transactions it holds
    // already: here every answer is two behind. Each send reading it hands out used nonces; the
    // operator's own sequence asks once and steps past what the node refuses.
    const proxy = await startRpcProxy(setup.chain.rpcUrl, async (call, forward) => {
      const answer = await forward()
      if (call.method === 'eth_getTransactionCount' && answer.result && BigInt(answer.result) >= 2n) {
        answer.result = `0x${(BigInt(answer.result) - 2n).toString(16)}`
      }
      return answer
    })
    try {
      const operatorKey = await operatorThatSent(2)
      const settler = createOnChainSettler({
        privateKey: operatorKey,
        rpcUrls: { 'eip155:84532': proxy.url },
        receiptTimeoutMs: 5_000,
        rpcTimeoutMs: 2_000,
      })
      const payments = await Promise.all(
        Array.from({ length: 10 }, (_, i) => verifiedPayment(setup.payerKeys[i % setup.payerKeys.length]!)),
      )
      const results = await Promise.all(payments.map((payment) => settler.settle(payment)))
      expect(results.filter((result) => !result.success)).toEqual([])
      const operator = privateKeyToAccount(operatorKey).address
      expect(await setup.chain.publicClient.getTransactionCount({ address: operator })).toBe(2 + 10)
    } finally {
      proxy.close()
    }
  })

  it('catches up when another process moved the operator account far ahead of this one', async () => {
    const operatorKey = await operatorThatSent(0)
    const settler = createOnChainSettler({
      privateKey: operatorKey,
      rpcUrls: { 'eip155:84532': setup.chain.rpcUrl },
      receiptTimeoutMs: 5_000,
      rpcTimeoutMs: 2_000,
    })
    expect((await settler.settle(await verifiedPayment(setup.payerKeys[0]!))).success).toBe(true)
    // Another process (a restart, a second instance) sends ten transactions from the same account.
    const other = createWalletClient({
      account: privateKeyToAccount(operatorKey),
      chain: setup.chain.chain,
      transport: http(setup.chain.rpcUrl),
    })
    for (let i = 0; i < 10; i++) {
      await setup.chain.publicClient.waitForTransactionReceipt({
        hash: await other.sendTransaction({ to: setup.payTo, value: 0n }),
      })
    }
    expect(await settler.settle(await verifiedPayment(setup.payerKeys[1]!))).toMatchObject({ success: true })
  })

  it('reports a transaction whose receipt does not come in time as settlement_timeout with its hash', async () => {
    // A JSON-RPC proxy to the local chain that never reports receipts.
    const proxy = await startRpcProxy(setup.chain.rpcUrl, async (call, forward) =>
      call.method === 'eth_getTransactionReceipt' ? { jsonrpc: '2.0', id: call.id, result: null } : forward(),
    )
    try {
      const settler = createOnChainSettler({
        privateKey: setup.operatorKey,
        rpcUrls: { 'eip155:84532': proxy.url },
        receiptTimeoutMs: 300,
      })
      const payment = await verifiedPayment(setup.payerKeys[0]!)
      const result = await settler.settle(payment)
      expect(result).toMatchObject({ success: false, errorReason: 'settlement_timeout', retryable: true })
      expect(result.transaction).toMatch(/^0x[0-9a-f]{64}$/)
      // The ledger sweep asks the real node what became of it: mined, and the nonce is spent.
      const direct = settlerFor(setup.chain.rpcUrl)
      expect(await settler.transactionStatus('eip155:84532', result.transaction as Hex)).toBe('pending')
      expect(await direct.transactionStatus('eip155:84532', result.transaction as Hex)).toBe('success')
      expect(await direct.authorizationUsed(payment)).toBe(true)
    } finally {
      proxy.close()
    }
  })
})

/** The payer signs EIP-3009 CancelAuthorization for `nonce` and account 0 submits it. */
async function cancelAuthorization(payerKey: Hex, nonce: Hex): Promise<void> {
  const payer = privateKeyToAccount(payerKey)
  const signature = await payer.signTypedData({
    domain: { name: 'USD Coin', version: '2', chainId: 84532, verifyingContract: setup.usdc.address },
    types: {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'CancelAuthorization',
    message: { authorizer: payer.address, nonce },
  })
  const { r, s, v } = parseSignature(signature)
  const submitter = createWalletClient({
    account: privateKeyToAccount(setup.chain.accounts[0]!.privateKey),
    chain: setup.chain.chain,
    transport: http(setup.chain.rpcUrl),
  })
  const hash = await submitter.writeContract({
    address: setup.usdc.address,
    abi: setup.usdc.abi,
    functionName: 'cancelAuthorization',
    args: [payer.address, nonce, Number(v), r, s],
  })
  const receipt = await setup.chain.publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
}

describe('a used authorization nonce is not a payment: the chain must show the transfer to us', () => {
  it('paid when its transfer to payTo landed; unused before; used_elsewhere once the payer cancelled it', async () => {
    const settler = settlerFor(setup.chain.rpcUrl)
    const paid = await verifiedPayment(setup.payerKeys[0]!)
    expect(await settler.paymentLanded(paid)).toBe('unused')
    expect((await settler.settle(paid)).success).toBe(true)
    expect(await settler.paymentLanded(paid)).toBe('paid')

    const cancelled = await verifiedPayment(setup.payerKeys[0]!)
    await cancelAuthorization(setup.payerKeys[0]!, cancelled.authorization!.nonce)
    // The nonce reads used, exactly as after a settlement...
    expect(await settler.authorizationUsed(cancelled)).toBe(true)
    // ...but nothing moved to us: settling it is a nonce_replay and the chain shows no transfer.
    expect(await settler.settle(cancelled)).toMatchObject({ success: false, errorReason: 'nonce_replay' })
    expect(await settler.paymentLanded(cancelled)).toBe('used_elsewhere')
    // The scheme's question ("did this payment land?") answers false, so no sweep or retry calls it SETTLED.
    const scheme = exactEvmScheme({
      config: setup.config,
      nonceStore: createMemoryNonceStore({ clock: systemClock }),
      onChain: settler,
    })
    expect(await scheme.authorizationUsed!(cancelled)).toBe(false)
    expect(await scheme.authorizationUsed!(paid)).toBe(true)
  })

  it('the retry of a settlement whose nonce turns out used: SETTLED when our earlier send landed, FAILED when the payer cancelled', async () => {
    const database = await openTestDatabase('pglite')
    try {
      const onChain = settlerFor(setup.chain.rpcUrl)
      const scheme = exactEvmScheme({
        config: setup.config,
        nonceStore: createMemoryNonceStore({ clock: systemClock }),
        onChain,
      })
      /** Each payment's first settlement "gets no answer" (after `first` ran, if given); later ones go to the chain. */
      const seen = new Set<string>()
      const flaky = (first?: (payment: VerifiedPayment) => Promise<unknown>) => ({
        settle: async (payment: VerifiedPayment) => {
          if (!seen.has(payment.paymentId)) {
            seen.add(payment.paymentId)
            await first?.(payment)
            return {
              success: false,
              network: payment.network,
              payer: payment.payer,
              errorReason: 'settlement_timeout' as const,
              retryable: true,
              submitted: true,
            }
          }
          return onChain.settle(payment)
        },
      })
      const run = async (first: (payment: VerifiedPayment) => Promise<unknown>) => {
        const ledger = createSettlementLedger({
          db: database.db,
          clock: systemClock,
          config: setup.config,
          instanceId: randomUUID(),
        })
        const service = createSettlementService({
          ledger,
          settler: flaky(first),
          clock: systemClock,
          retryBaseMs: 1,
          authorizationUsed: scheme.authorizationUsed!,
        })
        const payment = await verifiedPayment(setup.payerKeys[1]!)
        const id = await ledger.reserve(payment, 'risk_score', null)
        expect((await service.settleReserved(id, payment)).kind).toBe('deferred')
        await new Promise((resolve) => setTimeout(resolve, 20))
        await service.retryDue()
        return ledger.get(id)
      }
      // Our first send went out and was mined, only its answer was lost: the money is ours.
      expect(await run((payment) => onChain.settle(payment))).toMatchObject({ status: 'SETTLED' })
      // The payer cancelled the authorization meanwhile: used on chain, nothing paid.
      const payTo = await setup.usdc.balanceOf(setup.payTo)
      expect(
        await run((payment) => cancelAuthorization(setup.payerKeys[1]!, payment.authorization!.nonce)),
      ).toMatchObject({ status: 'FAILED', lastError: expect.stringContaining('nothing was paid') })
      expect(await setup.usdc.balanceOf(setup.payTo)).toBe(payTo)
    } finally {
      await database.close()
    }
  })
})
