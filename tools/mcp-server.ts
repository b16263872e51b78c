import { randomUUID } from 'node:crypto'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { describeOperation, type OperationDescription } from '../core/discovery/describe-operation.ts'
import { PaymentRequiredError, ServiceError } from '../core/errors.ts'
import type { RateLimitState } from '../core/limits/index.ts'
import { formatUsdShort } from '../core/money.ts'
import {
  type AnyOperation,
  fillPath,
  type InvocationResult,
  invokeOperation,
  type OperationRuntime,
} from '../core/operations/index.ts'
import type { Receipt } from '../core/payments/charge.ts'
import { type TierPrices, tierView } from '../core/payments/pricing.ts'
import { bazaarExtensionsFor, withBazaar } from '../http/bazaar.ts'
import { toProblem, withInstance } from '../http/problem.ts'
import { getPrompt, listPrompts } from './mcp-prompts.ts'

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
/** Wrapper of a PaymentRequired in an error result's `content[0].text` (x402 MCP transport). */
export const X402_ERROR_KEY = 'x402/error'
/**
 * `_meta` key of a tools/call request choosing the quality tier (`cached`, `fresh`, `enhanced`):
 * MCP has no request headers, and the tool arguments are the route's input, nothing more.
 */
export const QUALITY_META = 'response_quality'
/** `_meta` key of a successful tool result carrying the payer's tightest rate limit (REST: X-RateLimit-*). */
export const RATE_LIMIT_META = 'rate_limit'
/**
 * `_meta` key of a tools/call request carrying an idempotency key: the REST Idempotency-Key for
 * calls paid from an API key. A retry with the same key and the same call (tool, quality tier,
 * arguments) within 24 hours gets the stored result, charged nothing, with
 * `_meta["idempotent_replayed"]: true`; the same key with other arguments is a 422 tool error
 * naming `_meta.idempotency_key`; while the first call runs, a 409 tool error with retryAfter.
 */
export const IDEMPOTENCY_KEY_META = 'idempotency_key'
/** `_meta` key of a tool result that is a stored answer served again (REST: Idempotent-Replayed). */
export const IDEMPOTENT_REPLAYED_META = 'idempotent_replayed'

/**
 * Ends a tool call's charge once it is known whether its result reached the client: `true`
 * captures a key's debit, `false` releases it (see InvocationResult.settle).
 */
export type SettleCall = (delivered: boolean) => Promise<void>

/** Told of each tool result the transport sent, with the settle of its charge. */
export type OnResultSent = (settle: SettleCall) => void

/** A settle that charges nothing more: tool errors, unknown tools. */
const nothingToSettle: SettleCall = async () => {}

/** The parameters of a tools/call as sent: `arguments` may be anything, and is validated as input. */
export interface ToolCallParams {
  name: string
  arguments?: unknown
  _meta?: Record<string, unknown>
}

/** The tools of the registry and how to call one, built once at start-up. */
export interface McpToolset {
  version: string
  tools: Tool[]
  /**
   * Runs a tool call and returns its result with the settle of its charge, for the transport to
   * call once it knows whether the result went out.
   */
  invoke(
    params: ToolCallParams,
    apiKey: string | undefined,
    clientAddress?: string,
  ): Promise<{ result: CallToolResult; settle: SettleCall }>
  /** A tool call in process: the result handed back is the delivery (its charge is captured). */
  call(params: ToolCallParams, apiKey: string | undefined, clientAddress?: string): Promise<CallToolResult>
}

/**
 * A failed call as a tool error. Its data is JSON in `content[0].text` and never in
 * `structuredContent`: the official SDK client checks any `structuredContent` against the tool's
 * output schema (once it has listed the tools) and throws instead of returning the error.
 * - 402: the x402 MCP transport's form, `{"x402/error": {code: 402, message, data: PaymentRequired}}`
 *   (what x402 MCP clients read; the transport makes `structuredContent` optional).
 * - anything else: the REST problem document (422 `detail` is the `{field, message}` list), plus
 *   `retryAfter` in seconds where REST sends Retry-After.
 */
function errorResult(
  error: unknown,
  requestId: string,
  onError: McpToolsetOptions['onError'],
  /** The REST path the call stands for, when the operation's problems carry `instance`. */
  instance?: string,
): CallToolResult {
  if (error instanceof PaymentRequiredError) {
    const paymentRequired = error.paymentRequired as { error?: unknown }
    const message = typeof paymentRequired.error === 'string' ? paymentRequired.error : error.message
    const wrapped = { [X402_ERROR_KEY]: { code: 402, message, data: paymentRequired } }
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(wrapped) }] }
  }
  const outcome = toProblem(error, requestId, onError)
  const { retryAfter, rateLimit } = outcome
  const problem = instance === undefined ? outcome.problem : withInstance(outcome.problem, instance)
  const document = {
    ...problem,
    ...(retryAfter === undefined ? {} : { retryAfter }),
    ...(rateLimit ? { rateLimit: rateLimitView(rateLimit) } : {}),
  }
  if (Array.isArray(document.detail)) {
    // A root-level failure names the request body over REST; over MCP it is the arguments.
    document.detail = document.detail.map((item: { field: string; message: string }) => ({
      ...item,
      field: item.field.replace(/^\(body\)/, '(arguments)'),
    }))
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(document) }] }
}

/** The limit as MCP results carry it: what REST sends as X-RateLimit-Limit, -Remaining and -Reset. */
function rateLimitView(state: RateLimitState): { limit: number; remaining: number; reset: number } {
  return { limit: state.limit, remaining: state.remaining, reset: state.reset }
}

/** What an x402 payment settled as, for `_meta` (a paid call by key has no settlement meta). */
function receiptMeta(receipt: Receipt): Record<string, unknown> | undefined {
  const settlement = receipt.settlement
  if (!settlement) return undefined
  const response =
    settlement.state === 'pending' ? { ...settlement.response, pending: true } : settlement.response
  return { [X402_PAYMENT_RESPONSE_META]: response }
}

/** In a `u` pattern a surrogate pair is one code point, so this matches only a lone half. */
const LONE_SURROGATE = /\p{Surrogate}/u

/**
 * The REST resource a tool call stands for, path parameters filled in from its arguments. Built
 * before the arguments are validated, so it takes only what can be encoded: a parameter that is
 * not a well-formed string (a number, an object, a lone surrogate) keeps its `{name}` placeholder
 * and is then refused by validation like over REST (422 naming it), never a 500.
 */
function resourceUrl(base: string, operation: AnyOperation, args: Record<string, unknown>): string {
  const path = fillPath(operation.http.path, (name) => {
    const value = Object.hasOwn(args, name) ? args[name] : undefined
    return typeof value === 'string' && !LONE_SURROGATE.test(value) ? value : undefined
  })
  return `${base}${path}`
}

/** The path of an absolute URL (a problem's `instance`: what the request path is over REST). */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname
  } catch {
    return url
  }
}

function priceSentence(label: string, prices: TierPrices): string {
  const entries = Object.entries(tierView(prices, formatUsdShort))
  if (entries.length === 1) return `${label} ${entries[0]?.[1]}`
  return `${label} ${entries.map(([quality, price]) => `${price} ${quality}`).join(', ')}`
}

/**
 * What an agent needs before calling: what the tool does, what one call costs, how to choose the
 * quality tier and who may call it, in MCP terms (no HTTP headers).
 */
function describeTool(description: OperationDescription): string {
  const lines = [
    description.description ? `${description.summary}. ${description.description}` : description.summary,
  ]
  const { prices, access } = description
  if (prices === null) {
    if (!lines[0]?.includes('Free; needs an API key.')) lines.push('Free; needs an API key.')
  } else {
    const per = prices.perUnit ? 'per unit' : 'per call'
    lines.push(
      `Price in USD ${per}: ${priceSentence('paid per call with x402', prices.x402)}; ${priceSentence('from an API key balance', prices.account)}. Without a key the call returns an x402 PaymentRequired error; pay it with _meta["${X402_PAYMENT_META}"]. A failed call is not charged.`,
      `Paid from a key, a call may carry _meta["${IDEMPOTENCY_KEY_META}"] (1-255 printable ASCII characters): a retry with the same key and arguments returns the stored result without a second charge.`,
    )
    if (prices.qualities.length > 1) {
      lines.push(
        `Quality tier: _meta["${QUALITY_META}"] in the tools/call request, one of ${prices.qualities.join(', ')} (default fresh).`,
      )
    }
  }
  if (access.sandbox === 'mock') lines.push('Sandbox keys get a deterministic mock, free.')
  if (access.sandbox === 'refuse') lines.push('Sandbox keys are refused; needs a live key or x402 payment.')
  if (access.minTier)
    lines.push(`API keys need the ${access.minTier} tier or higher (x402 payers need no key).`)
  return lines.join('\n')
}

/** MCP tool hints from the description. */
function annotationsOf(description: OperationDescription): ToolAnnotations {
  const { hints } = description
  return {
    title: description.title,
    readOnlyHint: hints.readOnly,
    destructiveHint: hints.destructive,
    idempotentHint: hints.idempotent,
    openWorldHint: hints.openWorld,
  }
}

/** The tool's `_meta`: prices as data (USD strings) and the quality tiers it offers. */
function toolMeta(description: OperationDescription): Record<string, unknown> {
  const { prices } = description
  if (prices === null) return { pricing: { currency: 'USD', free: true } }
  return {
    pricing: {
      currency: 'USD',
      per: prices.perUnit ? 'unit' : 'call',
      x402: tierView(prices.x402, formatUsdShort),
      account: tierView(prices.account, formatUsdShort),
    },
    ...(prices.qualities.length > 1
      ? { [QUALITY_META]: { values: prices.qualities, default: 'fresh' } }
      : {}),
  }
}

/** An operation's one description as an MCP tool. */
function toolOf(operation: AnyOperation): Tool {
  const description = describeOperation(operation)
  return {
    name: description.id,
    title: description.title,
    description: describeTool(description),
    inputSchema: { ...description.input, type: 'object' },
    outputSchema: { ...description.output, type: 'object' },
    annotations: annotationsOf(description),
    _meta: toolMeta(description),
  }
}

/** A string `_meta` entry; anything but a string is passed on (as JSON) to be refused by validation. */
function metaString(meta: Record<string, unknown> | undefined, key: string): string | undefined {
  const raw = meta?.[key]
  if (raw === undefined || raw === null) return undefined
  return typeof raw === 'string' ? raw : JSON.stringify(raw)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The tool result of an answer: the output as structured content and text, receipt and limits in `_meta`. */
/** `_meta` key of a paid answer's signed receipt (the JSON the REST X-Receipt header carries). */
export const ANSWER_RECEIPT_META = 'receipt'

function toolResultOf(result: InvocationResult): CallToolResult {
  const output = (result.output ?? {}) as Record<string, unknown>
  const receipt = receiptMeta(result.receipt)
  const meta =
    receipt || result.rateLimit || result.replayed || result.answerReceipt
      ? {
          ...receipt,
          ...(result.answerReceipt ? { [ANSWER_RECEIPT_META]: result.answerReceipt } : {}),
          ...(result.rateLimit ? { [RATE_LIMIT_META]: rateLimitView(result.rateLimit) } : {}),
          ...(result.replayed ? { [IDEMPOTENT_REPLAYED_META]: true } : {}),
        }
      : undefined
  return {
    structuredContent: output,
    content: [{ type: 'text', text: JSON.stringify(output) }],
    ...(meta ? { _meta: meta } : {}),
  }
}

/**
 * The registry as MCP tools: a tool per operation with the route's input schema, through the same
 * pipeline as REST (authenticate, validate, charge, run). Built once: schemas are rendered here,
 * not per request.
 */
export function createMcpToolset(options: McpToolsetOptions): McpToolset {
  const { runtime, operations } = options
  const byId = new Map(operations.map((operation) => [operation.id, operation]))
  const tools: Tool[] = operations.map(toolOf)
  const priced = new Map(
    operations
      .filter((operation) => operation.price)
      .map((operation) => [operation.id, bazaarExtensionsFor(describeOperation(operation))]),
  )
  /**
   * A tool's 402 with the Bazaar discovery data of the REST route it stands for: the challenge
   * names that route as its resource, so the data describes the route (method, body, path).
   */
  const discoverable = (error: unknown, operationId: string, resource: string) => {
    const extensions = priced.get(operationId)
    if (!extensions || !(error instanceof PaymentRequiredError)) return error
    return withBazaar(error, extensions(pathOf(resource)))
  }

  const toolset: McpToolset = {
    version: options.version,
    tools,
    async call(params, apiKey, clientAddress) {
      const { result, settle } = await toolset.invoke(params, apiKey, clientAddress)
      await settle(true)
      return result
    },
    async invoke(params, apiKey, clientAddress) {
      const requestId = randomUUID()
      const operation = byId.get(params.name)
      if (!operation) {
        const result = errorResult(
          new ServiceError('not_found', `unknown tool ${params.name}`),
          requestId,
          options.onError,
        )
        return { result, settle: nothingToSettle }
      }
      // Arguments that are not an object (a string, an array, null) are input like any other:
      // the pipeline refuses them with the 422 field list, as a tool error.
      const args = params.arguments === undefined ? {} : params.arguments
      const resource = resourceUrl(options.resourceBase, operation, isPlainObject(args) ? args : {})
      const instance = operation.http.problemInstance ? pathOf(resource) : undefined
      let result: InvocationResult
      try {
        result = await invokeOperation(runtime, operation, {
          apiKey,
          input: args,
          quality: metaString(params._meta, QUALITY_META),
          qualityField: `_meta.${QUALITY_META}`,
          payment: params._meta?.[X402_PAYMENT_META],
          resourceUrl: resource,
          requestId,
          clientAddress,
          idempotencyKey: params._meta?.[IDEMPOTENCY_KEY_META] ?? undefined,
          idempotencyKeyField: `_meta.${IDEMPOTENCY_KEY_META}`,
        })
      } catch (error) {
        // Nothing was charged: the pipeline released what it held before it threw.
        const failure = discoverable(error, operation.id, resource)
        return { result: errorResult(failure, requestId, options.onError, instance), settle: nothingToSettle }
      }
      try {
        return { result: toolResultOf(result), settle: result.settle }
      } catch (error) {
        // The answer could not be rendered, so it is never delivered: the charge is given back.
        await result.settle(false)
        return { result: errorResult(error, requestId, options.onError, instance), settle: nothingToSettle }
      }
    },
  }
  return toolset
}

/** tools/call parameters as the fallback handler reads them: `arguments` is checked as input later. */
const ToolCallParamsSchema = z.object({
  name: z.string(),
  arguments: z.unknown().optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
})

/** What the check needs of an SDK request schema (they are zod v4 schemas of different shapes). */
interface RequestSchema {
  safeParse(
    value: unknown,
  ):
    | { success: true }
    | { success: false; error: { issues: readonly { path: PropertyKey[]; message: string }[] } }
}

/**
 * Requests the SDK's own handlers parse with these schemas. The SDK parses inside the handler, so
 * a malformed one would come back as -32603 Internal error carrying the zod issues as JSON text;
 * they are checked before delivery instead and answered -32602 Invalid params naming the fields.
 * (tools/call is parsed by this server's own handler below, with the same answer.)
 */
const SDK_PARSED_REQUESTS: ReadonlyMap<string, RequestSchema> = new Map<string, RequestSchema>([
  ['initialize', InitializeRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['ping', PingRequestSchema],
  ['prompts/list', ListPromptsRequestSchema],
  ['prompts/get', GetPromptRequestSchema],
])

/** The -32602 answer to a request whose params its method's schema refuses; undefined when they pass. */
export function invalidParamsResponse(message: JSONRPCMessage): JSONRPCErrorResponse | undefined {
  if (!isJSONRPCRequest(message)) return undefined
  const schema = SDK_PARSED_REQUESTS.get(message.method)
  if (!schema) return undefined
  const parsed = schema.safeParse(message)
  if (parsed.success) return undefined
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.map(String).join('.') || '(request)'
    return { field, message: issue.message }
  })
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: ErrorCode.InvalidParams,
      message: `Invalid params for ${message.method}: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`,
      data: { fields: problems },
    },
  }
}

/** A JSON-RPC success response (what answers a tools/call), without parsing the whole message. */
function resultResponseId(message: JSONRPCMessage): string | number | undefined {
  return 'result' in message && 'id' in message ? message.id : undefined
}

/**
 * The SDK's Server, checking the params of the requests its own handlers parse before they are
 * delivered (SDK_PARSED_REQUESTS), and settling each tool call's charge by what became of its
 * result. The check is installed on the transport's `onmessage` just before the transport
 * starts, so no message reaches the protocol unchecked (stdio, Streamable HTTP and in-memory
 * alike); `send` is wrapped at the same time: a result the transport sent goes to `onResultSent`
 * with its settle, one it failed to send is settled as not delivered, and one never sent (the
 * request was cancelled, the connection closed) is settled as not delivered when its request is
 * aborted.
 */
class ParamsCheckingServer extends Server {
  /** Settles of tool results not sent yet, by JSON-RPC request id. */
  readonly unsent = new Map<string | number, SettleCall>()
  onResultSent: OnResultSent = (settle) => void settle(true)

  /** Holds a tool call's settle until its result is sent (or its request aborted). */
  holdUntilSent(requestId: string | number, signal: AbortSignal, settle: SettleCall): void {
    if (signal.aborted) {
      void settle(false)
      return
    }
    this.unsent.set(requestId, settle)
    signal.addEventListener(
      'abort',
      () => {
        const unsent = this.unsent.get(requestId)
        if (unsent !== settle) return
        this.unsent.delete(requestId)
        void settle(false)
      },
      { once: true },
    )
  }

  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport)
    transport.send = async (message, options) => {
      const id = resultResponseId(message)
      const settle = id === undefined ? undefined : this.unsent.get(id)
      if (id === undefined || !settle) return send(message, options)
      this.unsent.delete(id)
      try {
        await send(message, options)
      } catch (error) {
        await settle(false)
        throw error
      }
      this.onResultSent(settle)
    }
    const start = transport.start.bind(transport)
    transport.start = async () => {
      const deliver = transport.onmessage
      transport.onmessage = (message, extra) => {
        const refusal = invalidParamsResponse(message)
        if (!refusal) return deliver?.(message, extra)
        transport.send(refusal).catch((error: unknown) => transport.onerror?.(error as Error))
      }
      await start()
    }
    await super.connect(transport)
  }
}

/**
 * An MCP protocol endpoint over a toolset. The caller's key travels as the SDK's `authInfo`
 * (the HTTP handler passes X-API-Key); `apiKey` is the fixed key of a stdio session.
 * A tool call's charge is settled by what became of its result: `onResultSent` gets it once the
 * transport sent it (default: delivered then, as over stdio, where sent means written to stdout);
 * a result the transport could not send, or never sent, is not delivered and not charged.
 */
export function createMcpServer(
  toolset: McpToolset,
  options: { apiKey?: string; onResultSent?: OnResultSent } = {},
): Server {
  const server = new ParamsCheckingServer(
    { name: 'validation-service', version: toolset.version },
    { capabilities: { tools: {}, prompts: {} } },
  )
  if (options.onResultSent) server.onResultSent = options.onResultSent
  const toolNames = new Set(toolset.tools.map((tool) => tool.name))
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolset.tools }))
  // Prompts for the common jobs (tools/mcp-prompts.ts): one page, the list is short and fixed.
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: listPrompts() }))
  server.setRequestHandler(GetPromptRequestSchema, async (request) =>
    getPrompt(request.params.name, request.params.arguments),
  )
  // tools/call is served by the fallback handler because the SDK's own tools/call handler parses
  // the request first and answers `arguments` that are not an object (a string, an array, null)
  // with a JSON-RPC error (-32603). Here they reach the pipeline, which answers a tool error with
  // the same `{field, message}` list as the REST 422.
  server.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, 'Method not found')
    const params = ToolCallParamsSchema.safeParse(request.params)
    if (!params.success) {
      throw new McpError(
        ErrorCode.InvalidParams,
        'tools/call needs params.name (a string); _meta, if sent, is an object',
      )
    }
    // An unknown tool is a protocol error (MCP: tools, error handling), not a tool result.
    if (!toolNames.has(params.data.name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.data.name}`)
    }
    const auth = extra.authInfo
    const clientAddress = auth?.extra?.clientAddress
    const { result, settle } = await toolset.invoke(
      params.data,
      auth ? auth.token || undefined : options.apiKey,
      typeof clientAddress === 'string' ? clientAddress : undefined,
    )
    server.holdUntilSent(extra.requestId, extra.signal, settle)
    return result
  }
  return server
}

/**
 * Streamable HTTP at /mcp, stateless. The toolset is shared; each request gets a fresh transport
 * and protocol shell because the SDK allows neither a stateless transport to be reused nor one
 * Protocol to serve two transports at once. The key is passed as `authInfo`, so one key's call
 * never sees another's. Results go out as the JSON body of the HTTP response
 * (`enableJsonResponse`): `onResultSent` gets the settle of each tool result put in it, for the
 * HTTP adapter to call once that response was written whole (delivered) or its connection closed
 * first (not delivered); without it, a result put in the response counts as delivered.
 */
export function createMcpHttpHandler(toolset: McpToolset) {
  return async (
    request: Request,
    apiKey: string | undefined,
    clientAddress?: string,
    onResultSent?: OnResultSent,
  ): Promise<Response> => {
    const server = createMcpServer(toolset, onResultSent ? { onResultSent } : {})
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    try {
      return await transport.handleRequest(
        request,
        apiKey === undefined && clientAddress === undefined
          ? undefined
          : {
              authInfo: {
                token: apiKey ?? '',
                clientId: 'x-api-key',
                scopes: [],
                ...(clientAddress === undefined ? {} : { extra: { clientAddress } }),
              },
            },
      )
    } finally {
      void server.close()
    }
  }
}
