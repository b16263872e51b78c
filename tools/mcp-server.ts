import { randomUUID } from 'node:crypto'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import { PaymentRequiredError } from '../core/errors.ts'
import { type AnyOperation, invokeOperation, type OperationRuntime } from '../core/operations/index.ts'
import { toJsonSchema } from '../core/operations/json-schema.ts'
import type { Receipt } from '../core/payments/charge.ts'
import { toProblem } from '../http/problem.ts'

export interface McpToolsetOptions {
  runtime: OperationRuntime
  operations: readonly AnyOperation[]
  version: string
  /** Base URL for x402 resource descriptions, e.g. http://host:3000. */
  resourceBase: string
  onError?: (error: unknown, requestId: string) => void
}

/** `_meta` key carrying an x402 payment in a tool call (x402 MCP transport). */
export const X402_PAYMENT_META = 'x402/payment'
/** `_meta` key of the settlement answer in an MCP tool result (x402 MCP transport). */
export const X402_PAYMENT_RESPONSE_META = 'x402/payment-response'

/** The tools of the registry and how to call one, built once at start-up. */
export interface McpToolset {
  version: string
  tools: Tool[]
  call(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    apiKey: string | undefined,
  ): Promise<CallToolResult>
}

function errorResult(
  error: unknown,
  requestId: string,
  onError: McpToolsetOptions['onError'],
): CallToolResult {
  if (error instanceof PaymentRequiredError) {
    return {
      isError: true,
      structuredContent: error.paymentRequired as Record<string, unknown>,
      content: [{ type: 'text', text: JSON.stringify(error.paymentRequired) }],
    }
  }
  const { status, problem } = toProblem(error, requestId, onError)
  const { detail } = problem
  const text = Array.isArray(detail)
    ? `${status}: ${detail.map((f: { field: string; message: string }) => `${f.field}: ${f.message}`).join('; ')}`
    : `${status}: ${String(detail)}`
  const { title: _title, ...structured } = problem
  return { isError: true, structuredContent: structured, content: [{ type: 'text', text }] }
}

/** What an x402 payment settled as, for `_meta` (a paid call by key has no settlement meta). */
function receiptMeta(receipt: Receipt): Record<string, unknown> | undefined {
  const settlement = receipt.settlement
  if (!settlement) return undefined
  const response =
    settlement.state === 'pending' ? { ...settlement.response, pending: true } : settlement.response
  return { [X402_PAYMENT_RESPONSE_META]: response }
}

/** The REST resource a tool call stands for, path parameters filled in from its arguments. */
function resourceUrl(base: string, operation: AnyOperation, args: Record<string, unknown>): string {
  const path = operation.http.path.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_match, name: string) =>
    encodeURIComponent(String(args[name] ?? '')),
  )
  return `${base}${path}`
}

/**
 * The registry as MCP tools: a tool per operation with the route's input schema, through the same
 * pipeline as REST (authenticate, validate, charge, run). Built once: schemas are rendered here,
 * not per request.
 */
export function createMcpToolset(options: McpToolsetOptions): McpToolset {
  const { runtime, operations } = options
  const byId = new Map(operations.map((operation) => [operation.id, operation]))
  const tools: Tool[] = operations.map((operation) => ({
    name: operation.id,
    title: operation.summary,
    description: operation.description ?? operation.summary,
    inputSchema: { ...toJsonSchema(operation.input, 'input'), type: 'object' },
    outputSchema: { ...toJsonSchema(operation.output, 'output'), type: 'object' },
  }))

  return {
    version: options.version,
    tools,
    async call(params, apiKey) {
      const requestId = randomUUID()
      const operation = byId.get(params.name)
      if (!operation) {
        return { isError: true, content: [{ type: 'text', text: `404: unknown tool ${params.name}` }] }
      }
      const args = params.arguments ?? {}
      try {
        const result = await invokeOperation(runtime, operation, {
          apiKey,
          input: args,
          payment: params._meta?.[X402_PAYMENT_META],
          resourceUrl: resourceUrl(options.resourceBase, operation, args),
          requestId,
        })
        const output = (result.output ?? {}) as Record<string, unknown>
        const meta = receiptMeta(result.receipt)
        return {
          structuredContent: output,
          content: [{ type: 'text', text: JSON.stringify(output) }],
          ...(meta ? { _meta: meta } : {}),
        }
      } catch (error) {
        return errorResult(error, requestId, options.onError)
      }
    },
  }
}

/**
 * An MCP protocol endpoint over a toolset. The caller's key travels as the SDK's `authInfo`
 * (the HTTP handler passes X-API-Key); `apiKey` is the fixed key of a stdio session.
 */
export function createMcpServer(toolset: McpToolset, options: { apiKey?: string } = {}): Server {
  const server = new Server(
    { name: 'validation-service', version: toolset.version },
    { capabilities: { tools: {} } },
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolset.tools }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) =>
    toolset.call(request.params, extra.authInfo?.token ?? options.apiKey),
  )
  return server
}

/**
 * Streamable HTTP at /mcp, stateless. The toolset is shared; each request gets a fresh transport
 * and protocol shell because the SDK allows neither a stateless transport to be reused nor one
 * Protocol to serve two transports at once. The key is passed as `authInfo`, so one key's call
 * never sees another's.
 */
export function createMcpHttpHandler(toolset: McpToolset) {
  return async (request: Request, apiKey: string | undefined): Promise<Response> => {
    const server = createMcpServer(toolset)
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    try {
      return await transport.handleRequest(
        request,
        apiKey === undefined ? undefined : { authInfo: { token: apiKey, clientId: 'x-api-key', scopes: [] } },
      )
    } finally {
      void server.close()
    }
  }
}
