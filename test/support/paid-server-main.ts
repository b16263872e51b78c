/**
 * Test-only server process: the real composition root with the priced test operation, on the
 * database and payment settings in the environment. Prints `{"port": n}` once listening. Used to
 * kill a server between verification and settlement.
 */

import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { createService } from '../../server/compose.ts'
import { paidRegistry } from './paid-operations.ts'
import { testConfig } from './test-config.ts'

const service = await createService(testConfig(process.env), { operations: paidRegistry, log: () => {} })
serve({ fetch: service.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  process.stdout.write(`${JSON.stringify({ port: info.port })}\n`)
})
