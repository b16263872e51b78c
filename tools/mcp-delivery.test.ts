import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { waitFor } from '../test/support/paid-server.ts'
import { createMcpServer, type McpToolset, type SettleCall } from './mcp-server.ts'

/**
 * A tool call's charge is settled by what became of its result: delivered once the transport sent
 * it (or as the caller of `onResultSent` decides), not delivered when sending failed or the result
 * was never sent (the request was cancelled).
 */
function toolset(options: { before?: Promise<void> } = {}) {
  const settled: boolean[] = []
  const settle: SettleCall = async (delivered) => void settled.push(delivered)
  const set: McpToolset = {
    version: 'test',
    tools: [{ name: 'paid', inputSchema: { type: 'object' } }],
    async invoke() {
      await options.before
      return { result: { content: [{ type: 'text', text: '{}' }], structuredContent: {} }, settle }
    },
    async call() {
      throw new Error('not used')
    },
  }
  return { set, settled }
}

async function connect(
  set: McpToolset,
  options: Parameters<typeof createMcpServer>[1] = {},
  failSend = false,
) {
  const [client, server] = InMemoryTransport.createLinkedPair()
  if (failSend) {
    const send = server.send.bind(server)
    server.send = async (message, sendOptions) => {
      if ('result' in message) throw new Error('the pipe is gone')
      return send(message, sendOptions)
    }
  }
  const received: JSONRPCMessage[] = []
  client.onmessage = (message) => void received.push(message)
  await createMcpServer(set, options).connect(server)
  await client.start()
  const call = (id: number) =>
    client.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'paid', arguments: {} } })
  return { client, received, call }
}

describe('MCP tool results settle their charge by delivery', () => {
  it('a result the transport sent is delivered (stdio: written to the pipe)', async () => {
    const { set, settled } = toolset()
    const { received, call } = await connect(set)
    await call(1)
    await waitFor(async () => (settled.length > 0 ? true : undefined), 'the settle')
    expect(settled).toEqual([true])
    expect(received).toHaveLength(1)
  })

  it('a result the transport failed to send is not delivered', async () => {
    const { set, settled } = toolset()
    const { call } = await connect(set, {}, true)
    await call(1)
    await waitFor(async () => (settled.length > 0 ? true : undefined), 'the settle')
    expect(settled).toEqual([false])
  })

  it('with onResultSent the transport hands the settle over instead (Streamable HTTP: settled with the HTTP response)', async () => {
    const { set, settled } = toolset()
    const handed: SettleCall[] = []
    const { call } = await connect(set, { onResultSent: (settle) => void handed.push(settle) })
    await call(1)
    await waitFor(async () => (handed.length > 0 ? true : undefined), 'the hand-over')
    expect(settled).toEqual([])
    await handed[0]!(false)
    expect(settled).toEqual([false])
  })

  it('a call cancelled before its result was sent is not delivered', async () => {
    let release = () => {}
    const before = new Promise<void>((resolve) => {
      release = resolve
    })
    const { set, settled } = toolset({ before })
    const { client, received, call } = await connect(set)
    await call(7)
    await client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })
    release()
    await waitFor(async () => (settled.length > 0 ? true : undefined), 'the settle')
    expect(settled).toEqual([false])
    expect(received).toEqual([])
  })
})
