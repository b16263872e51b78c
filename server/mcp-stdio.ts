import { claimDataDirFromEnv, DataDirInUseError } from '../core/store/data-dir-lock.ts'

/**
 * MCP over stdio (the `validation-mcp` bin): the same tools as /mcp, in-process. The caller's key
 * comes from SVC_API_KEY. Logs go to stderr; stdout belongs to the protocol.
 */
async function main(): Promise<void> {
  // Claimed before the service loads: a folder a running service holds is refused at once.
  const dataDirLock = claimDataDirFromEnv()
  const [{ StdioServerTransport }, { createMcpServer }, { createService }, { loadConfig }] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../tools/mcp-server.ts'),
      import('./compose.ts'),
      import('./config.ts'),
    ])
  const config = loadConfig()
  const service = await createService(config, {
    log: (level, message, extra) => console.error(JSON.stringify({ level, message, extra })),
    ...(dataDirLock ? { dataDirLock } : {}),
  })
  const server = createMcpServer(service.mcp, { apiKey: process.env.SVC_API_KEY })
  await server.connect(new StdioServerTransport())
  const shutdown = () => void service.close().finally(() => process.exit(0))
  process.stdin.on('close', shutdown)
  process.on('SIGTERM', shutdown)
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  if (error instanceof DataDirInUseError) {
    console.error('To use a running service, point the MCP client at its /mcp endpoint instead.')
  }
  process.exit(1)
})
