import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { createMcpServer } from '../tools/mcp-server.ts'
import { createService } from './compose.ts'
import { loadConfig } from './config.ts'

/**
 * MCP over stdio (the `validation-mcp` bin): the same tools as /mcp, in-process. The caller's key
 * comes from SVC_API_KEY. Logs go to stderr; stdout belongs to the protocol.
 */
async function main(): Promise<void> {
  const config = loadConfig()
  const service = await createService(config, {
    log: (level, message, extra) => console.error(JSON.stringify({ level, message, extra })),
  })
  const server = createMcpServer(service.mcp, { apiKey: process.env.SVC_API_KEY })
  await server.connect(new StdioServerTransport())
  const shutdown = () => void service.close().finally(() => process.exit(0))
  process.stdin.on('close', shutdown)
  process.on('SIGTERM', shutdown)
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
