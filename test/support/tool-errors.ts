/**
 * How a client reads this server's tool errors (used by the tests). An error result has
 * `isError: true` and its data as JSON in `content[0].text`, never in `structuredContent` (which
 * the official SDK client would check against the tool's output schema):
 * - a 402 is the x402 MCP transport's `{"x402/error": {code: 402, message, data: PaymentRequired}}`,
 *   read here as x402's MCP client reads it (coinbase/x402 `x402MCPClient`);
 * - any other failure is the REST problem document (`status`, `detail`, ...).
 */

/** A tools/call result as any client returns it (`isError`, `content`). */
type ToolResultLike = object

/** The parsed JSON of an error result's `content[0].text`, or undefined if there is none. */
function errorJson(result: ToolResultLike): Record<string, unknown> | undefined {
  const { isError, content } = result as { isError?: unknown; content?: unknown }
  if (isError !== true || !Array.isArray(content)) return undefined
  const first = content[0] as { type?: unknown; text?: unknown } | undefined
  if (first?.type !== 'text' || typeof first.text !== 'string') return undefined
  try {
    const parsed: unknown = JSON.parse(first.text)
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** The x402 PaymentRequired of a 402 tool error, or null for any other result. */
export function paymentRequiredOf<T = Record<string, unknown>>(result: ToolResultLike): T | null {
  const wrapper = errorJson(result)?.['x402/error'] as
    | { code?: unknown; message?: unknown; data?: unknown }
    | undefined
  if (wrapper?.code !== 402 || typeof wrapper.message !== 'string') return null
  return typeof wrapper.data === 'object' && wrapper.data !== null ? (wrapper.data as T) : null
}

/** The problem document of a non-402 tool error, or null for any other result. */
export function problemOf(
  result: ToolResultLike,
): { status: number; detail: unknown; [member: string]: unknown } | null {
  const json = errorJson(result)
  if (!json || typeof json.status !== 'number') return null
  return json as { status: number; detail: unknown }
}
