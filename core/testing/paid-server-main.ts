/**
 * Test-only server process: the real composition root with the priced test operation, on the
 * database and payment settings in the environment. Prints `{"port": n}` once listening. Used to
 * kill a server between verification and settlement.
 */

import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { createService } from '../../server/compose.ts'
import { loadConfig } from '../../server/config.ts'
import { paidRegistry } from './paid-operations.ts'

const service = await createService(loadConfig(), { operations: paidRegistry, log: () => {} })
serve({ fetch: service.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  process.stdout.write(`${JSON.stringify({ port: info.port })}\n`)
})
