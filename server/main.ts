import { createService } from './compose.ts'
import { loadConfig } from './config.ts'
import { serveHttp } from './http-server.ts'

/** `npm start`: the HTTP API with /mcp, on PGlite in DATA_DIR unless DATABASE_URL is set. */
async function main(): Promise<void> {
  const started = performance.now()
  const config = loadConfig()
  const service = await createService(config)
  const { server, port } = await serveHttp(service.app.fetch, { port: config.PORT, hostname: config.HOST })
  console.log(
    JSON.stringify({
      level: 'info',
      message: 'listening',
      port,
      database: service.database.kind,
      startup_ms: Math.round(performance.now() - started),
    }),
  )
  const shutdown = () => {
    server.close()
    void service.close().finally(() => process.exit(0))
  }
  process.on('SIGINT', shutdown)
  process.on('SIGTERM', shutdown)
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
