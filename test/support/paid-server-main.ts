/**
 * Test-only server process: the real composition root with the priced test operation, on the
 * database and payment settings in the environment. Prints `{"port": n}` once listening. Used to
 * kill a server between verification and settlement.
 */

import { createService } from '../../server/compose.ts'
import { serveHttp } from '../../server/http-server.ts'
import { paidRegistry } from './paid-operations.ts'
import { testConfig } from './test-config.ts'

const service = await createService(testConfig(process.env), { operations: paidRegistry, log: () => {} })
// The fault tests open 1,000 connections at once: a listen queue that holds them all, so none
// waits on a dropped SYN while the process is busy answering the others.
const { port } = await serveHttp(service.app.fetch, { port: 0, hostname: '127.0.0.1', backlog: 2048 })
process.stdout.write(`${JSON.stringify({ port })}\n`)
