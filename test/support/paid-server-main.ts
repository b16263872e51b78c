/**
 * Test-only server process: the real composition root with the priced test operation, on the
 * database and payment settings in the environment. Prints `{"port": n}` once listening. Used to
 * kill a server between verification and settlement. Test-only extras: `GET /test/open-reservations`
 * answers how many key reservations are neither captured nor released (the fault tests wait on
 * it instead of sleeping), and SIGTERM stops it cleanly (calls in flight finish, their charges
 * are settled, the database is closed).
 */

import { sql } from 'drizzle-orm'
import { rowsOf } from '../../core/store/database.ts'
import { createService } from '../../server/compose.ts'
import { serveHttp } from '../../server/http-server.ts'
import { paidRegistry } from './paid-operations.ts'
import { testConfig } from './test-config.ts'

const service = await createService(testConfig(process.env), { operations: paidRegistry, log: () => {} })

async function openReservations(): Promise<Response> {
  const [row] = rowsOf<{ n: unknown }>(
    await service.database.db.execute(
      sql`select count(*)::int as n from key_reservations where captured_at is null`,
    ),
  )
  return Response.json({ open: Number(row?.n) })
}

const fetch = (request: Request, env?: unknown) =>
  new URL(request.url).pathname === '/test/open-reservations'
    ? openReservations()
    : service.app.fetch(request, env as never)
// The fault tests open 1,000 connections at once: a listen queue that holds them all, so none
// waits on a dropped SYN while the process is busy answering the others.
const { port, server } = await serveHttp(fetch, { port: 0, hostname: '127.0.0.1', backlog: 2048 })
process.stdout.write(`${JSON.stringify({ port })}\n`)
process.on('SIGTERM', () => {
  server.close(() => {
    void service.close().then(() => process.exit(0))
  })
  server.closeIdleConnections()
})
