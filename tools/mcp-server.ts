import { randomUUID } from 'node:crypto'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { isServiceError, PaymentRequiredError } from '../core/errors.ts'
import type { AnyOperation } from '../core/operations/define.ts'
import { invokeOperation, type OperationRuntime, statusOf } from '../core/operations/invoke.ts'

export interface McpServerOptions {
  runtime: OperationRuntime
  operations: readonly AnyOperation[]
  version: string
  /** The caller's API key (X-API-Key over HTTP, an environment variable over stdio). */
  apiKey?: string
  /** Base URL for x402 resource descriptions, e.g. http://host:3000. */
  resourceBase: string
  onError?: (error: unknown, requestId: string) => void
}

/** `_meta` key carrying an x402 payment in a tool call (x402 MCP transport). */
export const X402_PAYMENT_META = 'x402/payment'

function objectSchema(schema: z.ZodType, io: 'input' | 'output') {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >
  return { ...rest, type: 'object' as const }
}

function errorResult(
  error: unknown,
  requestId: string,
  onError?: McpServerOptions['onError'],
): CallToolResult {
  if (error instanceof PaymentRequiredError) {
    return {
      isError: true,
      structuredContent: error.paymentRequired as Record<string, unknown>,
      content: [{ type: 'text', text: JSON.stringify(error.paymentRequired) }],
    }
  }
  const status = statusOf(error)
  let detail: unknown
  if (isServiceError(error)) {
    detail = error.fields ?? error.message
  } else {
    onError?.(error, requestId)
    detail = `unexpected error (request id ${requestId})`
  }
  const problem = {
    type: 'about:blank',
    status,
    detail,
    ...(isServiceError(error) ? error.extra : {}),
  }
  const text = Array.isArray(detail)
    ? `${status}: ${detail.map((f: { field: string; message: string }) => `${f.field}: ${f.message}`).join('; ')}`
    : `${status}: ${String(detail)}`
  return { isError: true, structuredContent: problem, content: [{ type: 'text', text }] }
}

/**
 * One MCP server built from the operation registry: a tool per operation, same input schema as
 * the REST route, same pipeline (authenticate, validate, charge, run).
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { runtime, operations } = options
  const byId = new Map(operations.map((operation) => [operation.id, operation]))
  const tools = operations.map((operation) => ({
    name: operation.id,
    title: operation.summary,
    description: operation.description ?? operation.summary,
    inputSchema: objectSchema(operation.input, 'input'),
    outputSchema: objectSchema(operation.output, 'output'),
  }))

  const server = new Server(
    { name: 'validation-service', version: options.version },
    { capabilities: { tools: {} } },
  )

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const requestId = randomUUID()
    const operation = byId.get(request.params.name)
    if (!operation) {
      return {
        isError: true,
        content: [{ type: 'text', text: `404: unknown tool ${request.params.name}` }],
      }
    }
    try {
      const result = await invokeOperation(runtime, operation, {
        apiKey: options.apiKey,
        input: request.params.arguments ?? {},
        quality: undefined,
        payment: request.params._meta?.[X402_PAYMENT_META],
        resourceUrl: `${options.resourceBase}${operation.http.path}`,
        requestId,
      })
      const output = result.output as Record<string, unknown>
      return {
        structuredContent: output,
        content: [{ type: 'text', text: JSON.stringify(output) }],
        ...(Object.keys(result.meta).length > 0 ? { _meta: result.meta } : {}),
      }
    } catch (error) {
      return errorResult(error, requestId, options.onError)
    }
  })

  return server
}

/**
 * Streamable HTTP at /mcp, stateless: each request gets its own server bound to that request's
 * API key, so one key's session never sees another's.
 */
export function createMcpHttpHandler(options: Omit<McpServerOptions, 'apiKey'>) {
  return async (request: Request, apiKey: string | undefined): Promise<Response> => {
    const server = createMcpServer({ ...options, apiKey })
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    try {
      return await transport.handleRequest(request)
    } finally {
      void server.close()
    }
  }
}
