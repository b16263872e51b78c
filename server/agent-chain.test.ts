import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemClock } from '../core/context.ts'
import { type LocalChain, startLocalChain } from '../test/support/chain/local-chain.ts'
import { testConfig } from '../test/support/test-config.ts'
import { buildAgentChain } from './agent-chain.ts'

describe('agent chain start-up', () => {
  let chain: LocalChain
  const warnings: string[] = []
  const log = (_level: string, message: string) => void warnings.push(message)

  beforeAll(async () => {
    chain = await startLocalChain({ chainId: 84532, accountCount: 1 })
  })
  afterAll(async () => {
    await chain?.stop()
  })

  it('stops start-up naming the variable when the RPC serves another chain', async () => {
    const config = testConfig({ AGENT_CHAIN: 'base', BASE_RPC_URL: chain.rpcUrl })
    await expect(buildAgentChain(config, systemClock, log)).rejects.toThrow(
      /BASE_RPC_URL: the RPC answers chain id 84532, expected 8453/,
    )
  })

  it('starts on the configured chain with the official registry addresses by default', async () => {
    const config = testConfig({ AGENT_CHAIN: 'base-sepolia', BASE_SEPOLIA_RPC_URL: chain.rpcUrl })
    const built = await buildAgentChain(config, systemClock, log)
    expect(built.reader?.chainId).toBe(84532)
    expect(built.registries).toEqual({
      identity: '0x8004A818BFB912233c491871b3d84c89A494BD9e',
      reputation: '0x8004B663056A597Dffe9eCcC1965A193B7388713',
    })
  })

  it('only warns when the RPC does not answer, and without an RPC builds no reader', async () => {
    const down = await buildAgentChain(
      testConfig({ BASE_RPC_URL: 'http://127.0.0.1:9', SOURCE_TIMEOUT_MS: '1000' }),
      systemClock,
      log,
    )
    expect(down.reader).toBeDefined()
    expect(warnings.some((w) => w.includes('did not answer the chain id check'))).toBe(true)
    expect((await buildAgentChain(testConfig({}), systemClock, log)).reader).toBeUndefined()
  })

  it('refuses a bad AGENT_CHAIN or registry address at start-up, naming it', () => {
    expect(() => testConfig({ AGENT_CHAIN: 'ethereum' })).toThrow(/AGENT_CHAIN/)
    expect(() => testConfig({ ERC8004_IDENTITY_REGISTRY: '0x1234' })).toThrow(/ERC8004_IDENTITY_REGISTRY/)
  })
})
