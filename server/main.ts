import { claimDataDirFromEnv } from '../core/store/data-dir-lock.ts'

/** `npm start`: the HTTP API with /mcp, on PGlite in DATA_DIR unless DATABASE_URL is set. */
async function main(): Promise<void> {
  const started = performance.now()
  // Claimed before the service loads, so a second process on a running service's folder refuses at once.
  const dataDirLock = claimDataDirFromEnv()
  const [{ serve }, { createService }, { loadConfig }] = await Promise.all([
    import('@hono/node-server'),
    import('./compose.ts'),
    import('./config.ts'),
  ])
  const config = loadConfig()
  const service = await createService(config, dataDirLock ? { dataDirLock } : {})
  const server = serve({ fetch: service.app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
    console.log(
      JSON.stringify({
        level: 'info',
        message: 'listening',
        port: info.port,
        database: service.database.kind,
        startup_ms: Math.round(performance.now() - started),
      }),
    )
  })
  // Longer than the keep-alive of clients and load balancers (commonly 60 s), so the server never
  // closes an idle socket a client is about to reuse.
  Object.assign(server, { keepAliveTimeout: 65_000, headersTimeout: 66_000 })
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
