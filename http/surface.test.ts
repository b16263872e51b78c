import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { AnyOperation } from '../core/operations/define.ts'
import { operations } from '../core/operations/index.ts'
import { createMcpServer } from '../tools/mcp-server.ts'
import { buildOpenApiDocument } from './openapi.ts'

function inputJsonSchema(operation: AnyOperation) {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(operation.input, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>
  return schema
}

/** The surface contract: every operation is a route and a tool with one and the same input schema. */
describe('operation surface', () => {
  const openapi = buildOpenApiDocument(operations, 'test') as {
    paths: Record<
      string,
      Record<string, { operationId: string; requestBody?: unknown; parameters: unknown[] }>
    >
  }
  let tools: { name: string; inputSchema: unknown }[] = []

  beforeAll(async () => {
    // Listing tools never touches the runtime.
    const server = createMcpServer({
      runtime: {} as never,
      operations,
      version: 'test',
      resourceBase: 'http://x',
    })
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
    await server.connect(serverTransport)
    const client = new Client({ name: 'surface', version: '1' })
    await client.connect(clientTransport)
    tools = (await client.listTools()).tools
    await client.close()
  })

  it('has unique snake_case ids and unique routes', () => {
    const ids = operations.map((operation) => operation.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9_]*$/)
    const routes = operations.map((operation) => `${operation.http.method} ${operation.http.path}`)
    expect(new Set(routes).size).toBe(routes.length)
  })

  it.each(operations.map((operation) => [operation.id, operation] as const))(
    '%s is a REST route and an MCP tool with the same input schema',
    (_id, operation) => {
      const route = openapi.paths[operation.http.path]?.[operation.http.method.toLowerCase()]
      expect(route?.operationId).toBe(operation.id)
      const expected = inputJsonSchema(operation)
      if (operation.http.method === 'POST') {
        expect(route?.requestBody).toEqual({
          required: true,
          content: { 'application/json': { schema: expected } },
        })
      } else {
        const queryNames = ((route?.parameters ?? []) as { in: string; name: string }[])
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => parameter.name)
        expect(queryNames).toEqual(Object.keys((expected.properties ?? {}) as object))
      }
      const tool = tools.find((candidate) => candidate.name === operation.id)
      expect(tool?.inputSchema).toEqual({ ...expected, type: 'object' })
    },
  )
})
