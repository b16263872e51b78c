import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { AnyOperation } from '../core/operations/define.ts'
import { operations } from '../core/operations/index.ts'
import { pathParameters } from '../core/operations/route-path.ts'
import { createMcpServer, createMcpToolset } from '../tools/mcp-server.ts'
import { createApp } from './app.ts'
import { buildOpenApiDocument } from './openapi.ts'
import { routePath } from './routes/operation-routes.ts'

function inputJsonSchema(operation: AnyOperation) {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(operation.input, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>
  return schema
}

/**
 * The surface contract: every operation is a route of the running router and an MCP tool with
 * one and the same input schema, and the OpenAPI document describes exactly that route.
 */
describe('operation surface', () => {
  const openapi = buildOpenApiDocument(operations, 'test') as {
    paths: Record<
      string,
      Record<string, { operationId: string; requestBody?: unknown; parameters: unknown[]; responses: object }>
    >
  }
  // Building the app and listing tools never touch the runtime.
  const app = createApp({
    runtime: {} as never,
    operations,
    health: { version: 'test', startedAt: new Date(), database: { kind: 'none', ping: async () => true } },
  })
  let tools: { name: string; inputSchema: unknown; outputSchema?: unknown }[] = []

  beforeAll(async () => {
    const toolset = createMcpToolset({
      runtime: {} as never,
      operations,
      version: 'test',
      resourceBase: 'http://x',
    })
    const server = createMcpServer(toolset)
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

  it('lists exactly one tool per operation', () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual(operations.map((operation) => operation.id).sort())
  })

  it.each(operations.map((operation) => [operation.id, operation] as const))(
    '%s is a route of the router, an OpenAPI operation and an MCP tool with the same input schema',
    (_id, operation) => {
      const served = app.routes.some(
        (route) => route.method === operation.http.method && route.path === routePath(operation.http.path),
      )
      expect(served).toBe(true)
      const route = openapi.paths[operation.http.path]?.[operation.http.method.toLowerCase()]
      expect(route?.operationId).toBe(operation.id)
      const expected = inputJsonSchema(operation)
      const inPath = pathParameters(operation.http.path)
      const parameters = (route?.parameters ?? []) as { in: string; name: string; required?: boolean }[]
      expect(parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(inPath)
      for (const name of inPath) expect(Object.keys((expected.properties ?? {}) as object)).toContain(name)
      if (operation.http.method === 'POST' && inPath.length === 0) {
        expect(route?.requestBody).toEqual({
          required: true,
          content: { 'application/json': { schema: expected } },
        })
      } else if (operation.http.method !== 'POST') {
        const queryNames = parameters.filter((p) => p.in === 'query').map((p) => p.name)
        expect(queryNames).toEqual(
          Object.keys((expected.properties ?? {}) as object).filter((name) => !inPath.includes(name)),
        )
      }
      expect(Object.keys(route?.responses ?? {})).toContain(String(operation.http.status ?? 200))
      if (operation.price === null) expect(Object.keys(route?.responses ?? {})).not.toContain('402')
      const tool = tools.find((candidate) => candidate.name === operation.id)
      expect(tool?.inputSchema).toEqual({ ...expected, type: 'object' })
    },
  )

  it('serves the free key routes as operations (reputation history, key usage)', () => {
    const ids = operations.map((operation) => operation.id)
    expect(ids).toEqual(expect.arrayContaining(['reputation_history', 'keys_usage', 'financial_health']))
  })
})
