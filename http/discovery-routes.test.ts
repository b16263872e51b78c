import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { operations as registry } from '../core/operations/index.ts'
import { type Service, VERSION } from '../server/compose.ts'
import { createManualClock } from '../test/support/fakes/manual-clock.ts'
import { createTestService } from '../test/support/service.ts'
import { listPrompts } from '../tools/mcp-prompts.ts'

const PUBLIC_ROUTES = [
  '/.well-known/agent.json',
  '/.well-known/agent-card.json',
  '/.well-known/mcp.json',
  '/.well-known/security.txt',
  '/v1/self-verify',
  '/v1/legal/terms',
  '/v1/legal/privacy',
  '/llms.txt',
  '/llms-full.txt',
  '/docs',
  '/docs/swagger-ui-bundle.js',
]

const PAY_TO = `0x${'11'.repeat(20)}`

describe('public discovery routes (unconfigured: placeholders, no x402)', () => {
  let service: Service
  const clock = createManualClock('2026-11-25T08:00:00.000Z')

  beforeAll(async () => {
    service = await createTestService('pglite', { PUBLIC_BASE_URL: 'https://api.example.com' }, { clock })
  })
  afterAll(async () => {
    await service.close()
  })

  it.each(PUBLIC_ROUTES)(
    '%s answers 200 with no key, a bad key or a payment header: never 401, 402 or 403',
    async (path) => {
      const variants: Record<string, string>[] = [
        {},
        { 'X-API-Key': 'svc_live_nonsense' },
        { 'X-API-Key': 'svc_test_abc' },
        { 'X-PAYMENT': 'garbage' },
      ]
      for (const headers of variants) {
        const response = await service.app.request(path, { headers })
        expect(response.status, `${path} ${JSON.stringify(headers)}`).toBe(200)
      }
    },
  )

  it('serves an A2A agent card whose skills are the registry operations, with prices and payment methods', async () => {
    const card = (await (await service.app.request('/.well-known/agent.json')).json()) as {
      protocolVersion: string
      name: string
      url: string
      version: string
      capabilities: { extensions: { uri: string }[] }
      securitySchemes: Record<string, { type: string; name: string }>
      defaultInputModes: string[]
      defaultOutputModes: string[]
      skills: { id: string; name: string; description: string; tags: string[]; security: object[] }[]
    }
    expect(card.protocolVersion).toBe('0.3.0')
    expect(card.url).toBe('https://api.example.com/v1')
    expect(card.defaultInputModes).toEqual(['application/json'])
    expect(card.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', name: 'X-API-Key' })
    expect(card.capabilities.extensions[0]?.uri).toBe('https://github.com/google-a2a/a2a-x402/v0.1')
    expect(card.skills.map((skill) => skill.id)).toEqual(registry.map((operation) => operation.id))
    const screen = card.skills.find((skill) => skill.id === 'sanctions_screen')
    expect(screen?.description).toContain('0.005 USD per call with x402, 0.11 USD from a key balance')
    expect(screen?.security).toEqual([{ apiKey: [] }, { x402: [] }])
    expect(card.skills.find((skill) => skill.id === 'keys_usage')?.description).toContain(
      'Free; needs an API key',
    )
    for (const skill of card.skills) expect(skill.tags.length).toBeGreaterThan(0)
  })

  it('serves mcp.json with the Streamable HTTP URL, the stdio command, the key header and every tool', async () => {
    const manifest = (await (await service.app.request('/.well-known/mcp.json')).json()) as {
      transports: { type: string; url?: string; command?: string; headers?: Record<string, string> }[]
      mcpServers: Record<string, { url: string }>
      tools: { name: string; price: { text: string } | null }[]
      prompts: { name: string; arguments: { name: string; required: boolean }[] }[]
    }
    const http = manifest.transports.find((transport) => transport.type === 'streamable-http')
    expect(http?.url).toBe('https://api.example.com/mcp')
    expect(Object.keys(http?.headers ?? {})).toEqual(['X-API-Key'])
    expect(manifest.transports.find((transport) => transport.type === 'stdio')?.command).toBe('npx')
    expect(manifest.mcpServers['validation-service']?.url).toBe('https://api.example.com/mcp')
    expect(manifest.tools.map((tool) => tool.name)).toEqual(registry.map((operation) => operation.id))
    expect(manifest.tools.find((tool) => tool.name === 'sanctions_screen')?.price?.text).toBe(
      '0.005 USD (x402) / 0.11 USD (key balance)',
    )
    // The prompts, exactly as prompts/list gives them.
    expect(manifest.prompts).toEqual(listPrompts())
    expect(manifest.prompts.length).toBeGreaterThanOrEqual(3)
  })

  it('serves security.txt per RFC 9116 with a marked placeholder contact and an Expires in the future', async () => {
    const response = await service.app.request('/.well-known/security.txt')
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    const text = await response.text()
    expect(text).toContain('# PLACEHOLDER')
    expect(text).toMatch(/^Contact: mailto:security@api\.example\.com$/m)
    expect(text).toMatch(/^Expires: 2027-05-24T08:00:00Z$/m)
    expect(text).toMatch(/^Canonical: https:\/\/api\.example\.com\/\.well-known\/security\.txt$/m)
  })

  it('serves self-verify with version, commit, list dates, no payment networks, a signing key slot and uptime', async () => {
    clock.advance(90_000)
    const body = (await (await service.app.request('/v1/self-verify')).json()) as Record<string, unknown> & {
      sanctions_lists: { list_key: string; loaded: boolean }[]
      payments: { x402_enabled: boolean; networks: unknown[] }
      report_signing: { key_id: string | null }
      uptime_s: number
      commit: string
    }
    expect(body.version).toBe(VERSION)
    expect(body.commit).toMatch(/^([0-9a-f]{40}|unknown)$/)
    expect(body.sanctions_lists.map((list) => list.list_key)).toEqual(['ofac_sdn', 'eu', 'un'])
    expect(body.sanctions_lists.every((list) => list.loaded === false)).toBe(true)
    expect(body.payments).toEqual({ x402_enabled: false, networks: [] })
    // The entity reports' signing key (RFC 7638 thumbprint of its public JWK).
    expect(body.report_signing.key_id).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(body.uptime_s).toBeGreaterThanOrEqual(0)
  })

  it('serves the legal texts as Markdown, with placeholders clearly marked', async () => {
    for (const path of ['/v1/legal/terms', '/v1/legal/privacy']) {
      const response = await service.app.request(path)
      expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
      expect(response.headers.get('x-placeholder')).toBe('true')
      expect(await response.text()).toContain('**PLACEHOLDER.**')
    }
  })

  it('serves llms.txt in the llmstxt.org format: H1, summary, every operation with price and example call', async () => {
    const text = await (await service.app.request('/llms.txt')).text()
    const lines = text.split('\n')
    expect(lines[0]).toMatch(/^# /)
    expect(lines[2]).toMatch(/^> /)
    expect(text).toContain('## Paid operations')
    expect(text).toContain('## Optional')
    // The routes outside the registry a caller needs: key creation and top-up, the badge.
    expect(text).toContain('POST /v1/keys/create')
    expect(text).toMatch(/POST \/v1\/keys\/upgrade\/\{tier\}.*starter [0-9.]+ USD/)
    expect(text).toContain('GET /v1/badge/{entity_id}')
    for (const operation of registry) {
      const line = lines.find((candidate) => candidate.startsWith(`- [${operation.id}: `))
      expect(line, operation.id).toBeDefined()
      expect(line).toContain(`${operation.http.method} ${operation.http.path}`)
      expect(line).toContain('curl ')
      expect(line).toMatch(operation.price ? /per call with x402/ : /Free \(API key required\)/)
    }
    const full = await (await service.app.request('/llms-full.txt')).text()
    for (const operation of registry) {
      expect(full).toContain(`(\`${operation.id}\`)`)
      expect(full).toContain(`"name":"${operation.id}"`)
    }
  })
})

describe('public discovery routes (configured)', () => {
  let service: Service
  let dir: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'legal-'))
    await writeFile(join(dir, 'terms.md'), '# Our terms\n')
    await writeFile(join(dir, 'privacy.md'), '# Our privacy notice\n')
    service = await createTestService('pglite', {
      PUBLIC_BASE_URL: 'https://api.example.com',
      X402_PAY_TO: PAY_TO,
      // Never reached: only the discovery documents are read.
      X402_FACILITATOR_URL: 'http://127.0.0.1:9',
      SECURITY_CONTACT: 'mailto:security@example.com, https://example.com/security',
      SECURITY_POLICY_URL: 'https://example.com/disclosure',
      SECURITY_TXT_EXPIRES: '2027-01-01T00:00:00Z',
      SERVICE_COMMIT: 'abc1234',
      LEGAL_TERMS_FILE: join(dir, 'terms.md'),
      LEGAL_PRIVACY_FILE: join(dir, 'privacy.md'),
    })
  })
  afterAll(async () => {
    await service?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('puts the configured contacts, expiry and policy in security.txt', async () => {
    const text = await (await service.app.request('/.well-known/security.txt')).text()
    expect(text).toBe(
      [
        'Contact: mailto:security@example.com',
        'Contact: https://example.com/security',
        'Expires: 2027-01-01T00:00:00Z',
        'Canonical: https://api.example.com/.well-known/security.txt',
        'Policy: https://example.com/disclosure',
        'Preferred-Languages: en, nl',
        '',
      ].join('\n'),
    )
  })

  it('names the commit and the Base payTo address in self-verify and the agent card', async () => {
    const body = (await (await service.app.request('/v1/self-verify')).json()) as {
      commit: string
      payments: { x402_enabled: boolean; networks: { network: string; chain_id: number; pay_to: string }[] }
    }
    expect(body.commit).toBe('abc1234')
    expect(body.payments.x402_enabled).toBe(true)
    expect(body.payments.networks).toEqual([
      expect.objectContaining({ network: 'eip155:8453', chain_id: 8453, pay_to: PAY_TO }),
    ])
    const card = (await (await service.app.request('/.well-known/agent.json')).json()) as {
      capabilities: { extensions: { params: { networks: { payTo: string }[] } }[] }
    }
    expect(card.capabilities.extensions[0]?.params.networks[0]?.payTo).toBe(PAY_TO)
  })

  it('serves the operator’s legal files unmarked', async () => {
    const terms = await service.app.request('/v1/legal/terms')
    expect(terms.headers.get('x-placeholder')).toBe('false')
    expect(await terms.text()).toBe('# Our terms\n')
    expect(await (await service.app.request('/v1/legal/privacy')).text()).toBe('# Our privacy notice\n')
  })

  it('stops start-up naming the variable when a legal file cannot be read', async () => {
    await expect(createTestService('pglite', { LEGAL_TERMS_FILE: join(dir, 'missing.md') })).rejects.toThrow(
      /LEGAL_TERMS_FILE/,
    )
  })
})
