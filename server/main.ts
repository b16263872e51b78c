import { claimDataDirFromEnv } from '../core/store/data-dir-lock.ts'

/** How long a stop waits for the calls in flight before cutting their connections. */
const DRAIN_MS = 10_000

function log(level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ level, message, ...fields, time: new Date().toISOString() }))
}

/** `npm start`: the HTTP API with /mcp, on PGlite in DATA_DIR unless DATABASE_URL is set. */
async function main(): Promise<void> {
  const started = performance.now()
  // Claimed before the service loads, so a second process on a running service's folder refuses at once.
  const dataDirLock = claimDataDirFromEnv()
  const [{ createService }, { loadConfig }, { serveHttp }] = await Promise.all([
    import('./compose.ts'),
    import('./config.ts'),
    import('./http-server.ts'),
  ])
  const config = loadConfig()
  const service = await createService(config, dataDirLock ? { dataDirLock } : {})
  const { server, port } = await serveHttp(service.app.fetch, { port: config.PORT, hostname: config.HOST })
  log('info', 'listening', {
    port,
    database: service.database.kind,
    startup_ms: Math.round(performance.now() - started),
  })
  let stopping = false
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      log('warn', 'stopping now, without waiting', { signal })
      process.exit(1)
    }
    stopping = true
    const since = performance.now()
    log('info', 'stopping: no new connections, waiting for the calls in flight', { signal })
    // In-flight calls finish (idle keep-alive sockets close at once); after DRAIN_MS the rest are cut.
    const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS)
    server.close(() => {
      clearTimeout(cut)
      log('info', 'calls in flight drained; closing the database and background jobs', {
        drain_ms: Math.round(performance.now() - since),
      })
      service
        .close()
        .then(() => {
          log('info', 'stopped', { signal, stop_ms: Math.round(performance.now() - since) })
          process.exit(0)
        })
        .catch((error: unknown) => {
          log('error', 'stopped with an error', {
            error: error instanceof Error ? error.message : String(error),
          })
          process.exit(1)
        })
    })
  }
  process.on('SIGINT', shutdown)
  process.on('SIGTERM', shutdown)
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
