import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { toEventSelector } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AGENT_WORLD_FUNDS,
  type AgentWorld,
  startAgentWorld,
} from '../../test/support/chain/agent-fixtures.ts'
import { type AgentChainReader, createAgentChainReader } from './agent-chain.ts'

describe('agent chain reader (viem over a local chain with the ERC-8004 reference registries)', () => {
  let world: AgentWorld
  let reader: AgentChainReader

  beforeAll(async () => {
    world = await startAgentWorld()
    reader = createAgentChainReader({
      rpcUrl: world.setup.chain.rpcUrl,
      chainId: 84532,
      usdc: world.setup.usdc.address,
      identityRegistry: world.registries.identity,
      reputationRegistry: world.registries.reputation,
    })
  }, 120_000)
  afterAll(async () => {
    await world?.stop()
  })

  it('accepts the chain it was configured for and refuses another', async () => {
    await expect(reader.verifyChainId()).resolves.toBeUndefined()
    const wrong = createAgentChainReader({
      rpcUrl: world.setup.chain.rpcUrl,
      chainId: 8453,
      usdc: world.setup.usdc.address,
      identityRegistry: world.registries.identity,
      reputationRegistry: world.registries.reputation,
    })
    await expect(wrong.verifyChainId()).rejects.toThrow(/answers chain id 84532, expected 8453/)
  })

  it('reads balances, identity and reputation of a clean agent wallet in three round trips', async () => {
    const before = reader.roundTrips()
    const snapshot = await reader.readWallet({
      wallet: world.clean.wallet,
      agentId: world.clean.agentId,
      reputation: true,
    })
    expect(reader.roundTrips() - before).toBeLessThanOrEqual(3)
    expect(snapshot.balances).toMatchObject({ status: 'ok' })
    if (snapshot.balances.status !== 'ok') throw new Error('unreachable')
    expect(snapshot.balances.data.usdc_raw).toBe(AGENT_WORLD_FUNDS)
    expect(snapshot.balances.data.native_wei).toBeGreaterThan(0n)
    expect(snapshot.balances.data.is_contract).toBe(false)
    expect(snapshot.balances.data.block_timestamp).toBeGreaterThan(1_600_000_000)
    expect(snapshot.identity).toMatchObject({
      status: 'ok',
      data: {
        wallet_agent_ids: [world.clean.agentId.toString()],
        agent: {
          agent_id: world.clean.agentId.toString(),
          registered: true,
          owner: world.clean.owner,
          agent_wallet: world.clean.wallet,
        },
      },
    })
    expect(snapshot.reputation).toMatchObject({
      status: 'ok',
      data: {
        agents: [
          {
            agent_id: world.clean.agentId.toString(),
            feedback_count: 4,
            distinct_clients: 3,
            clients_capped: false,
            top_tags: [
              { tag: 'reliability', count: 2, avg: 91.25 },
              { tag: 'speed', count: 2, avg: 80 },
              { tag: 'x402', count: 1, avg: 95 },
            ],
          },
        ],
      },
    })
  })

  it('finds the agents an owner holds, and none for an unregistered wallet', async () => {
    const before = reader.roundTrips()
    const owner = await reader.readWallet({ wallet: world.clean.owner, reputation: true })
    expect(reader.roundTrips() - before).toBe(3)
    expect(owner.reputation).toMatchObject({
      status: 'ok',
      data: { agents: [{ agent_id: world.clean.agentId.toString(), feedback_count: 4 }] },
    })
    expect(owner.identity).toMatchObject({
      status: 'ok',
      data: { wallet_agent_ids: [world.clean.agentId.toString()] },
    })
    const nobody = await reader.readWallet({ wallet: world.unregistered, agentId: 999n })
    expect(nobody.identity).toMatchObject({
      status: 'ok',
      data: { wallet_agent_ids: [], agent: { agent_id: '999', registered: false, owner: null } },
    })
  })

  it('drops an agent from its old owner after a transfer (events are confirmed on the current state)', async () => {
    const ownerKey = world.setup.payerKeys[5]!
    const id = await world.registries.register(ownerKey)
    await world.registries.transfer(ownerKey, world.empty, id)
    const previous = await reader.readWallet({ wallet: world.other.owner })
    expect(previous.identity.status === 'ok' && previous.identity.data.wallet_agent_ids).toEqual([
      world.other.agentId.toString(),
    ])
    const next = await reader.readWallet({ wallet: world.empty })
    expect(next.identity.status === 'ok' && next.identity.data.wallet_agent_ids).toEqual([id.toString()])
  })

  it('reports every part unavailable, never clean, when the RPC is down', async () => {
    const down = createAgentChainReader({
      rpcUrl: 'http://127.0.0.1:9',
      chainId: 84532,
      usdc: world.setup.usdc.address,
      identityRegistry: world.registries.identity,
      reputationRegistry: world.registries.reputation,
      timeoutMs: 2000,
    })
    const snapshot = await down.readWallet({ wallet: world.clean.wallet, agentId: 0n, reputation: true })
    expect(snapshot.balances).toMatchObject({ status: 'unavailable' })
    expect(snapshot.identity).toMatchObject({ status: 'unavailable' })
    expect(snapshot.reputation).toMatchObject({ status: 'unavailable' })
  })

  it('opens its circuit after repeated RPC failures and then stops calling the RPC', async () => {
    const down = createAgentChainReader({
      rpcUrl: 'http://127.0.0.1:9',
      chainId: 84532,
      usdc: world.setup.usdc.address,
      identityRegistry: world.registries.identity,
      reputationRegistry: world.registries.reputation,
      timeoutMs: 2000,
      breaker: { failureThreshold: 4, coolDownMs: 60_000 },
    })
    for (let i = 0; i < 2; i++) await down.readWallet({ wallet: world.clean.wallet })
    const trips = down.roundTrips()
    const snapshot = await down.readWallet({ wallet: world.clean.wallet })
    expect(snapshot.balances).toMatchObject({ status: 'unavailable', reason: 'circuit_open' })
    expect(snapshot.identity).toMatchObject({ status: 'unavailable', reason: 'circuit_open' })
    expect(down.breaker.state()).toBe('open')
    expect(down.roundTrips()).toBe(trips)
  })

  it('reports the owned agents when the RPC refuses the agent-wallet log scan (provider log limits)', async () => {
    // A JSON-RPC proxy in front of the local chain that answers the MetadataSet scan the way Infura answers
    // an eth_getLogs over its result limit (-32005), and forwards everything else.
    const metadataSet = toEventSelector('MetadataSet(uint256,string,string,bytes)')
    const proxy = createServer(async (request, response) => {
      const chunks: Buffer[] = []
      for await (const chunk of request) chunks.push(chunk as Buffer)
      const parsed = JSON.parse(Buffer.concat(chunks).toString()) as JsonRpc | JsonRpc[]
      const calls = Array.isArray(parsed) ? parsed : [parsed]
      const refused = (call: JsonRpc) =>
        call.method === 'eth_getLogs' &&
        (call.params?.[0] as { topics?: string[] } | undefined)?.topics?.[0] === metadataSet
      const forwarded = calls.filter((call) => !refused(call))
      const answers = forwarded.length
        ? ((await (
            await fetch(world.setup.chain.rpcUrl, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(forwarded),
            })
          ).json()) as { id: unknown }[])
        : []
      const out = calls.map((call) =>
        refused(call)
          ? {
              jsonrpc: '2.0',
              id: call.id,
              error: { code: -32005, message: 'query returned more than 10000 results' },
            }
          : answers.find((answer) => answer.id === call.id),
      )
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify(Array.isArray(parsed) ? out : out[0]))
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    try {
      const limited = createAgentChainReader({
        rpcUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        chainId: 84532,
        usdc: world.setup.usdc.address,
        identityRegistry: world.registries.identity,
        reputationRegistry: world.registries.reputation,
      })
      const owner = await limited.readWallet({ wallet: world.clean.owner })
      expect(owner.identity).toMatchObject({
        status: 'ok',
        data: {
          wallet_agent_ids: [world.clean.agentId.toString()],
          agent_wallet_scan_error: expect.stringContaining('10000 results'),
        },
      })
      // The agent wallet is found only by the refused scan: not listed, and said so.
      const agentWallet = await limited.readWallet({
        wallet: world.clean.wallet,
        agentId: world.clean.agentId,
      })
      expect(agentWallet.identity).toMatchObject({
        status: 'ok',
        data: { wallet_agent_ids: [], agent: { agent_wallet: world.clean.wallet } },
      })
    } finally {
      proxy.close()
    }
  })
})

interface JsonRpc {
  jsonrpc: string
  id: unknown
  method: string
  params?: unknown[]
}
