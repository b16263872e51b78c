import { jsonBody, jsonResponse, type RouteDescription, sharedSchema } from '../route-description.ts'

/** The MCP endpoint (http/app.ts, tools/mcp-server.ts): JSON-RPC over Streamable HTTP. */

const jsonRpcMessage = {
  type: 'object',
  description: 'A JSON-RPC 2.0 request or notification (MCP)',
  properties: {
    jsonrpc: { type: 'string', const: '2.0' },
    id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    method: { type: 'string', examples: ['initialize', 'tools/list', 'tools/call'] },
    params: { type: 'object', additionalProperties: true },
  },
  required: ['jsonrpc', 'method'],
}

const jsonRpcResponse = {
  type: 'object',
  description: 'A JSON-RPC 2.0 response (MCP)',
  properties: {
    jsonrpc: { type: 'string', const: '2.0' },
    id: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
    result: { type: 'object', additionalProperties: true },
    error: {
      type: 'object',
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
      required: ['code', 'message'],
    },
  },
  required: ['jsonrpc'],
}

export const mcpRoute: RouteDescription = {
  id: 'mcp',
  method: 'POST',
  path: '/mcp',
  tags: ['MCP'],
  summary: 'MCP Streamable HTTP endpoint (stateless; JSON responses)',
  description:
    'Every registry operation is also an MCP tool. Send JSON-RPC with POST and `Accept: application/json, text/event-stream`; GET and DELETE get 405. A browser Origin other than the public base URL, loopback or MCP_ALLOWED_ORIGINS gets 403. With X-API-Key, paid tools are debited from the key; without, a paid tool answers with the x402 PaymentRequired object and is paid through `_meta["x402/payment"]`.',
  access: 'public-or-key',
  parameters: [
    {
      name: 'mcp-protocol-version',
      in: 'header',
      required: false,
      schema: { type: 'string', examples: ['2025-06-18'] },
    },
  ],
  body: jsonBody({ oneOf: [jsonRpcMessage, { type: 'array', items: jsonRpcMessage }] }),
  responses: [
    jsonResponse(200, 'JSON-RPC response(s)', {
      oneOf: [jsonRpcResponse, { type: 'array', items: jsonRpcResponse }],
    }),
    { status: 202, description: 'Notification or response accepted (no body)' },
    jsonResponse(400, 'Malformed JSON-RPC (JSON-RPC error body)', jsonRpcResponse),
    {
      status: 403,
      description: 'Origin not allowed (DNS rebinding protection)',
      content: { 'application/problem+json': sharedSchema('Problem') },
    },
    jsonResponse(406, 'Accept must include application/json and text/event-stream', jsonRpcResponse),
    jsonResponse(415, 'Content-Type must be application/json', jsonRpcResponse),
  ],
  errors: [413, 429, 500],
}
