import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { operations } from '../core/operations/index.ts'
import { testPgliteDataDir } from '../test/support/database.ts'
import { OFFLINE_LISTS } from '../test/support/test-config.ts'
import { problemOf } from '../test/support/tool-errors.ts'
import { tsEntry } from '../test/support/ts-entry.ts'

/** The `validation-mcp` process (server/mcp-stdio.ts) through the official client's stdio transport. */
describe('MCP over stdio', () => {
  // A migrated data folder (a copy of the test template), as a server that ran before leaves it.
  let folder: { dataDir: string; remove(): void }
  let client: Client

  beforeAll(async () => {
    folder = await testPgliteDataDir('mcp-stdio-')
    client = new Client({ name: 'stdio-agent', version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: tsEntry('server/mcp-stdio.ts'),
        env: { ...getDefaultEnvironment(), ...OFFLINE_LISTS, DATA_DIR: folder.dataDir, LOG_LEVEL: 'error' },
        stderr: 'ignore',
      }),
    )
  }, 60_000)
  afterAll(async () => {
    await client?.close()
    folder?.remove()
  })

  it('lists every tool, then shows errors with their fields (no key, bad input, non-object arguments)', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual(operations.map((operation) => operation.id).sort())

    const badInput = await client.callTool({ name: 'sanctions_screen', arguments: { name: 'K' } })
    expect(badInput.isError).toBe(true)
    expect(problemOf(badInput)).toMatchObject({ status: 422, detail: [{ field: 'name' }] })

    const noKey = await client.callTool({ name: 'sanctions_screen', arguments: { name: 'Kim' } })
    expect(problemOf(noKey)).toMatchObject({ status: 401 })

    const notAnObject = await client.callTool({ name: 'risk_score', arguments: [] as never })
    expect(problemOf(notAnObject)).toMatchObject({
      status: 422,
      detail: [{ field: '(arguments)', message: 'expected object, received array' }],
    })
  })

  it('lists and renders the prompts', async () => {
    expect(client.getServerCapabilities()?.prompts).toBeDefined()
    const { prompts } = await client.listPrompts()
    expect(prompts.map((prompt) => prompt.name)).toEqual([
      'screen_counterparty',
      'verify_lead_list',
      'check_agent_wallet_before_paying',
    ])
    const prompt = await client.getPrompt({
      name: 'check_agent_wallet_before_paying',
      arguments: { wallet: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' },
    })
    expect(prompt.messages[0]?.content).toMatchObject({
      type: 'text',
      text: expect.stringContaining(
        'Call agent_check with {"wallet":"0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045"}',
      ),
    })
    await expect(client.getPrompt({ name: 'screen_counterparty', arguments: {} })).rejects.toThrow(
      /name: required/,
    )
  })
})
