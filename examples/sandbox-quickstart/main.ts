/**
 * Story: an integrator creates a free sandbox key and gets mock entity checks over REST and MCP.
 * Starts the service in-process on an in-memory database, then acts as a client over real HTTP.
 * Exits non-zero if anything it shows does not hold.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createDatabase } from '../../core/store/database.ts'
import { createService } from '../../server/compose.ts'
import { testConfig } from '../../test/support/test-config.ts'

const service = await createService(testConfig({ PORT: '0' }), {
  database: await createDatabase(),
  log: () => {},
})
const server = serve({ fetch: service.app.fetch, port: 0, hostname: '127.0.0.1' })
await new Promise((resolve) => server.once('listening', resolve))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

try {
  // 1. A sandbox key, shown once.
  const created = await fetch(`${base}/v1/keys/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'dev@example.com', tier: 'sandbox' }),
  })
  assert.equal(created.status, 201)
  const { api_key: apiKey } = (await created.json()) as { api_key: string }
  assert.match(apiKey, /^svc_sandbox_/)

  // 2. A mock entity check over REST, marked as mock.
  const entity = { entity_name: 'Koninklijke Philips N.V.', country: 'NL', kvk_number: '17001910' }
  const rest = await fetch(`${base}/v1/entity/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(entity),
  })
  assert.equal(rest.status, 200)
  const restBody = (await rest.json()) as { mock: boolean; trust_score: number }
  assert.equal(restBody.mock, true)
  console.log(`REST entity check: trust_score ${restBody.trust_score} (mock)`)

  // 3. The same check as an MCP tool over Streamable HTTP gives the same answer.
  const client = new Client({ name: 'quickstart', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { 'X-API-Key': apiKey } },
    }),
  )
  const tool = await client.callTool({ name: 'entity_check', arguments: entity })
  assert.deepEqual(tool.structuredContent, restBody)
  console.log('MCP entity_check: same answer as REST')

  // 4. Bad input: 422 naming the field.
  const bad = await fetch(`${base}/v1/entity/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ ...entity, country: 'nl' }),
  })
  assert.equal(bad.status, 422)
  const problem = (await bad.json()) as { detail: { field: string }[] }
  assert.deepEqual(
    problem.detail.map((error) => error.field),
    ['country'],
  )
  console.log('Bad country: 422 naming the field')
  await client.close()
} finally {
  server.close()
  await service.close()
}
