/**
 * Test-only server process for the webhook fault tests: the real composition root on the
 * database in the environment, with the loopback receiver override built from
 * TEST_WEBHOOK_CA_FILE (a PEM) and TEST_WEBHOOK_HOST. Only this test entry reads those variables;
 * the production entry (server/main.ts) never builds the override. Prints `{"port": n}` once
 * listening.
 */

import { readFileSync } from 'node:fs'
import { createService } from '../../../server/compose.ts'
import { serveHttp } from '../../../server/http-server.ts'
import { testConfig } from '../test-config.ts'

const caFile = process.env.TEST_WEBHOOK_CA_FILE
const host = process.env.TEST_WEBHOOK_HOST
if (!caFile || !host) throw new Error('TEST_WEBHOOK_CA_FILE and TEST_WEBHOOK_HOST are required')
const service = await createService(testConfig(process.env), {
  log: (level, message, extra) => {
    if (level !== 'info') process.stderr.write(`${JSON.stringify({ level, message, extra })}\n`)
  },
  webhookTestReceivers: { ca: readFileSync(caFile, 'utf8'), hosts: { [host]: '127.0.0.1' } },
})
const { port } = await serveHttp(service.app.fetch, { port: 0, hostname: '127.0.0.1' })
process.stdout.write(`${JSON.stringify({ port })}\n`)
