import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { LEAD_CHECK_POINTS, LEAD_FLAGS } from '../../core/leads/lead-flags.ts'
import { DISPOSABLE_MAIL_LIST } from '../../core/leads/mail-domains.ts'
import { usd } from '../../core/money.ts'
import type { Service } from '../../server/compose.ts'
import { createManualClock, type ManualClock } from '../support/fakes/index.ts'
import { type LeadFakes, startLeadFakes } from '../support/lead-fakes.ts'
import { createTestService, listen } from '../support/service.ts'

// Real NL and BE examples the fakes know: KVK test company 68750110 (Test BV Donald) with the VAT
// number made from its RSIN; Veneco (KBO 0200.065.765); Denderoord (0200.245.711), stopped by the
// fakes' KBO update extract; VIES NL812345678B01 belongs to Andere Handel B.V.
const CLEAN_NL = {
  reference: 'clean-nl',
  country: 'NL',
  company_name: 'Test BV Donald',
  kvk_number: '68750110',
  vat_number: 'NL857587973B01',
  email: 'jan@testbvdonald.nl',
  website: 'testbvdonald.nl',
  iban: 'NL91ABNA0417164300',
  contact_name: 'Jan de Vries',
}
const DISSOLVED_BE = {
  reference: 'dissolved-be',
  country: 'BE',
  company_name: 'Intercommunaal Sanatorium Denderoord',
  cbe_number: '0200.245.711',
}
const OTHER_VAT = {
  reference: 'other-vat',
  country: 'NL',
  company_name: 'Test BV Donald',
  kvk_number: '68750110',
  vat_number: 'NL812345678B01',
}
const DISPOSABLE = {
  reference: 'disposable',
  country: 'NL',
  company_name: 'Test BV Donald',
  kvk_number: '68750110',
  email: 'temp@mailinator.com',
}
const FREE_MAIL = {
  reference: 'free-mail',
  country: 'NL',
  company_name: 'Test BV Donald',
  kvk_number: '68750110',
  email: 'donald.test@gmail.com',
  website: 'testbvdonald.nl',
}
const FOREIGN_IBAN = {
  reference: 'foreign-iban',
  country: 'BE',
  company_name: 'Veneco',
  cbe_number: '0200.065.765',
  iban: 'NL91ABNA0417164300',
}
const SANCTIONED = {
  reference: 'sanctioned',
  country: 'NL',
  company_name: 'Test BV Donald',
  kvk_number: '68750110',
  contact_name: 'Blocked Trading LLC',
}

interface Flag {
  code: string
  severity: string
  action: string
  message: string
}
interface Check {
  check: string
  status: string
  source: string
  reason: string
}
interface LeadAnswer {
  status: string
  reference?: string
  index?: number
  verdict: string
  lead_score: number
  flags: Flag[]
  checks: Check[]
  checked_at: string
  errors?: { field: string; message: string }[]
}
type Body = Record<string, unknown> & LeadAnswer & { leads: LeadAnswer[]; summary: Record<string, number> }

const codes = (lead: LeadAnswer) => lead.flags.map((f) => f.code).sort()
const statusOf = (lead: LeadAnswer, check: string) => lead.checks.find((c) => c.check === check)?.status

describe('POST /v1/leads/verify against the fake KVK, KBO, VIES, DNS and sanctions', () => {
  let service: Service
  let fakes: LeadFakes
  let clock: ManualClock
  let liveKey: string
  let liveKeyId: string
  let sandboxKey: string

  beforeAll(async () => {
    clock = createManualClock(new Date())
    fakes = await startLeadFakes({ clock, sanctioned: ['Blocked Trading LLC'] })
    service = await createTestService(
      'pglite',
      {
        X402_PAY_TO: '0x1111111111111111111111111111111111111111',
        X402_NETWORKS: 'eip155:84532',
        // Never called: the x402 test here stops at the challenge.
        X402_FACILITATOR_URL: 'http://127.0.0.1:9/',
      },
      { clock },
    )
    service.runtime.deps.companySources = fakes.sources
    service.runtime.deps.sanctions = fakes.sanctions
    const live = await service.runtime.keys.create({
      email: 'a@example.com',
      tier: 'pro',
      balance: usd('100'),
    })
    liveKey = live.apiKey
    liveKeyId = live.record.id
    sandboxKey = (await service.runtime.keys.create({ email: 'b@example.com', tier: 'sandbox' })).apiKey
  })
  afterAll(async () => {
    await fakes?.close()
    await service?.close()
  })
  beforeEach(() => {
    fakes.behaveAll({ mode: 'normal', delayMs: 0 })
    fakes.sanctions.unavailableReason = undefined
  })

  async function post(body: unknown, key = liveKey) {
    const response = await service.app.request('/v1/leads/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as Body, headers: response.headers }
  }
  const balance = async () => (await service.runtime.keys.get(liveKeyId))?.balanceMicros

  it('lets a clean, active NL company proceed with every check ok and no flag', async () => {
    const before = await balance()
    const { status, body, headers } = await post(CLEAN_NL)
    expect(status).toBe(200)
    expect(headers.get('x-charged-amount')).toBe(usd('0.27').toString())
    expect(await balance()).toBe((before ?? 0n) - usd('0.27'))
    expect(body.verdict).toBe('proceed')
    expect(body.flags).toEqual([])
    expect(body.lead_score).toBe(100)
    expect(body.checks.map((c) => [c.check, c.status])).toEqual([
      ['register', 'ok'],
      ['vat', 'ok'],
      ['email', 'ok'],
      ['website', 'ok'],
      ['email_website', 'ok'],
      ['iban', 'ok'],
      ['sanctions', 'ok'],
    ])
    expect(body.checks.find((c) => c.check === 'email')).toMatchObject({ list: DISPOSABLE_MAIL_LIST })
    expect(body.checked_at).toBe(clock.now().toISOString())
  })

  it('marks an input not given as not_requested, never as clean', async () => {
    const { status, body } = await post({
      country: 'NL',
      company_name: 'Test BV Donald',
      kvk_number: '68750110',
    })
    expect(status).toBe(200)
    for (const check of ['vat', 'email', 'website', 'email_website', 'iban'])
      expect(statusOf(body, check), check).toBe('not_requested')
    expect(statusOf(body, 'register')).toBe('ok')
    expect(statusOf(body, 'sanctions')).toBe('ok')
    // Register + sanctions only: too little to proceed on.
    expect(body.lead_score).toBe(50)
    expect(body.verdict).toBe('review')
  })

  it('blocks a dissolved KBO enterprise: do_not_contact', async () => {
    const { body } = await post(DISSOLVED_BE)
    expect(body.verdict).toBe('block')
    expect(statusOf(body, 'register')).toBe('failed')
    expect(body.flags).toEqual([
      expect.objectContaining({ code: 'company_dissolved', severity: 'critical', action: 'do_not_contact' }),
    ])
  })

  it('reviews a VAT number that VIES registers to another company: verify_vat_manually', async () => {
    const { body } = await post(OTHER_VAT)
    expect(body.verdict).toBe('review')
    expect(statusOf(body, 'vat')).toBe('failed')
    expect(body.flags).toEqual([
      expect.objectContaining({ code: 'vat_other_company', action: 'verify_vat_manually' }),
    ])
    expect(body.flags[0]?.message).toContain('ANDERE HANDEL')
  })

  it('reviews a disposable e-mail without asking DNS: request_company_email', async () => {
    const dnsBefore = fakes.upstreamCalls().dns
    const { body } = await post(DISPOSABLE)
    expect(body.verdict).toBe('review')
    expect(codes(body)).toEqual(['disposable_email'])
    expect(body.flags[0]?.action).toBe('request_company_email')
    expect(body.checks.find((c) => c.check === 'email')).toMatchObject({
      status: 'failed',
      source: 'disposable_mail_list',
    })
    expect(fakes.upstreamCalls().dns).toBe(dnsBefore)
  })

  it('reviews a free-mail address (gmail.com): request_company_email, not an e-mail/website mismatch flag', async () => {
    const { body } = await post(FREE_MAIL)
    expect(body.verdict).toBe('review')
    expect(codes(body)).toEqual(['free_mail_address'])
    expect(body.flags[0]?.action).toBe('request_company_email')
    expect(statusOf(body, 'email')).toBe('ok')
    expect(statusOf(body, 'email_website')).toBe('failed')
  })

  it('reviews a BE lead with a Dutch IBAN: verify_bank_details', async () => {
    const { body } = await post(FOREIGN_IBAN)
    expect(body.verdict).toBe('review')
    expect(statusOf(body, 'register')).toBe('ok')
    expect(codes(body)).toEqual(['foreign_iban'])
    expect(body.flags[0]).toMatchObject({ severity: 'medium', action: 'verify_bank_details' })
  })

  it('blocks a lead whose contact name is sanctioned: do_not_contact', async () => {
    const { body } = await post(SANCTIONED)
    expect(body.verdict).toBe('block')
    expect(body.lead_score).toBe(0)
    expect(codes(body)).toEqual(['sanctions_possible_match'])
    expect(body.flags[0]).toMatchObject({ severity: 'critical', action: 'do_not_contact' })
    expect(body.flags[0]?.message).toContain('OFAC SDN')
  })

  it('never proceeds when the sources are down: unavailable checks, retry_later, lower score', async () => {
    fakes.behaveAll({ mode: 'error', error: 'http_503' })
    fakes.sanctions.unavailableReason = 'lists_not_loaded'
    const { status, body } = await post({ ...CLEAN_NL, reference: 'down' })
    expect(status).toBe(200)
    expect(body.verdict).toBe('review')
    for (const check of ['register', 'vat', 'email', 'website', 'sanctions'])
      expect(statusOf(body, check), check).toBe('unavailable')
    expect(body.flags.length).toBeGreaterThan(0)
    expect(body.flags.every((f) => f.code === 'source_unavailable' && f.action === 'retry_later')).toBe(true)
    // Only the checks that need no source (IBAN code list, e-mail vs website) earn points.
    expect(body.lead_score).toBeLessThan(70)
    expect(body.confidence).toBeLessThan(1)
  })

  it('gives every flag exactly one action from the vocabulary', () => {
    for (const [code, rule] of Object.entries(LEAD_FLAGS)) expect(typeof rule.action, code).toBe('string')
  })

  it('refuses another country and unknown fields with 422 naming the field, without charging', async () => {
    const before = await balance()
    const de = await post({ country: 'DE', company_name: 'Beispiel GmbH' })
    expect(de.status).toBe(422)
    expect(JSON.stringify(de.body)).toContain('country')
    expect(JSON.stringify(de.body)).toContain('NL and BE only')
    const extra = await post({ country: 'NL', company_name: 'Test BV Donald', phone: '+31 20 123' })
    expect(extra.status).toBe(422)
    expect(JSON.stringify(extra.body)).toContain('phone')
    const wrongNumber = await post({ country: 'BE', kvk_number: '68750110' })
    expect(wrongNumber.status).toBe(422)
    expect(JSON.stringify(wrongNumber.body)).toContain('kvk_number')
    expect(await balance()).toBe(before)
  })

  it('answers a batch in input order with per-lead errors, charging the valid leads only', async () => {
    const before = await balance()
    const leads = [
      CLEAN_NL,
      { reference: 'bad-email', country: 'NL', email: 'not-an-email' },
      DISSOLVED_BE,
      { reference: 'de', country: 'DE', company_name: 'Beispiel GmbH' },
      SANCTIONED,
    ]
    const { status, body, headers } = await post({ leads })
    expect(status).toBe(200)
    expect(body.leads.map((l) => [l.index, l.reference, l.status])).toEqual([
      [0, 'clean-nl', 'verified'],
      [1, 'bad-email', 'invalid'],
      [2, 'dissolved-be', 'verified'],
      [3, 'de', 'invalid'],
      [4, 'sanctioned', 'verified'],
    ])
    expect(body.leads.map((l) => l.verdict ?? null)).toEqual(['proceed', null, 'block', null, 'block'])
    expect(body.leads[1]?.errors?.[0]?.field).toBe('email')
    expect(body.leads[3]?.errors?.[0]?.field).toBe('country')
    expect(body.summary).toEqual({ total: 5, verified: 3, invalid: 2, proceed: 1, review: 0, block: 2 })
    expect(headers.get('x-charged-amount')).toBe((usd('0.27') * 3n).toString())
    expect(await balance()).toBe((before ?? 0n) - usd('0.27') * 3n)
  })

  it('gives a lead that is not an object its own error', async () => {
    const { status, body } = await post({
      leads: [CLEAN_NL, 'not a lead', null, { country: 'NL', extra: 1 }],
    })
    expect(status).toBe(200)
    expect(body.leads.map((l) => l.status)).toEqual(['verified', 'invalid', 'invalid', 'invalid'])
    for (const lead of body.leads.slice(1)) expect(lead.errors?.length).toBeGreaterThan(0)
    expect(body.leads[3]?.errors?.[0]?.field).toBe('extra')
  })

  it("a NUL or a lone surrogate in one lead of 100 is that lead's own error: 99 verified and charged", async () => {
    const before = await balance()
    const leads = Array.from({ length: 100 }, (_, n) => ({ ...CLEAN_NL, reference: `row-${n + 1}` }))
    leads[41] = { ...CLEAN_NL, reference: 'row-42', company_name: 'Voorbeeld\u0000 B.V.' }
    const { status, body, headers } = await post({ leads })
    expect(status).toBe(200)
    expect(body.summary).toMatchObject({ total: 100, verified: 99, invalid: 1 })
    expect(body.leads[41]).toMatchObject({
      index: 41,
      reference: 'row-42',
      status: 'invalid',
      errors: [{ field: 'company_name', message: 'contains a control character (U+0000) at position 9' }],
    })
    expect(headers.get('x-charged-amount')).toBe((usd('0.27') * 99n).toString())
    expect(await balance()).toBe((before ?? 0n) - usd('0.27') * 99n)
    // A lone surrogate in a field name or a value: the same, and a batch of only bad text is a 422.
    const surrogate = await post({ leads: [CLEAN_NL, { country: 'NL', contact_name: 'Jan \ud800' }] })
    expect(surrogate.body.leads[1]).toMatchObject({ status: 'invalid', errors: [{ field: 'contact_name' }] })
    const onlyBad = await post({ leads: [{ country: 'NL', company_name: 'A\u0000' }] })
    expect(onlyBad.status).toBe(422)
    expect(JSON.stringify(onlyBad.body)).toContain('leads.0.company_name')
    // A right-to-left override in a name: that lead's own 422-style error, naming the field.
    const override = await post({
      leads: [CLEAN_NL, { country: 'NL', company_name: 'Acme \u202efdp.exe B.V.' }],
    })
    expect(override.body.leads[1]).toMatchObject({
      status: 'invalid',
      errors: [
        {
          field: 'company_name',
          message: expect.stringContaining('bidirectional control character (U+202E RIGHT-TO-LEFT OVERRIDE)'),
        },
      ],
    })
    // Top-level fields are still checked as a whole.
    expect((await post({ leads: [CLEAN_NL], 'x\u0000': 1 })).status).toBe(422)
  })

  it('refuses an all-invalid batch with 422 and charges nothing', async () => {
    const before = await balance()
    const { status, body } = await post({
      leads: [{ country: 'DE' }, { country: 'NL', iban: 'NL00XXXX' }],
    })
    expect(status).toBe(422)
    expect(JSON.stringify(body)).toContain('leads.0.country')
    expect(JSON.stringify(body)).toContain('leads.1.iban')
    expect(await balance()).toBe(before)
  })

  it('refuses more than 100 leads and a mix of top-level fields and leads', async () => {
    const many = await post({ leads: Array.from({ length: 101 }, () => CLEAN_NL) })
    expect(many.status).toBe(422)
    expect(JSON.stringify(many.body)).toContain('leads')
    const both = await post({ country: 'NL', leads: [CLEAN_NL] })
    expect(both.status).toBe(422)
  })

  it('asks each source once per batch for the same VAT number, domain, register number and name', async () => {
    const before = fakes.upstreamCalls()
    const leads = Array.from({ length: 20 }, (_, i) => ({ ...CLEAN_NL, reference: `dup-${i}` }))
    const { status, body } = await post({ leads })
    expect(status).toBe(200)
    expect(body.leads.every((l) => l.verdict === 'proceed')).toBe(true)
    const after = fakes.upstreamCalls()
    expect(after.kvk - before.kvk).toBe(1)
    expect(after.vies - before.vies).toBe(1)
    // One MX/domain probe for testbvdonald.nl: the e-mail and the website share it.
    const dnsPerProbe = await (async () => {
      const probe = fakes.upstreamCalls().dns
      await post({ country: 'NL', email: 'x@testbvdonald.nl' })
      return fakes.upstreamCalls().dns - probe
    })()
    expect(after.dns - before.dns).toBe(dnsPerProbe)
    // Company name and contact name, each once.
    expect(after.sanctions - before.sanctions).toBe(2)
  })

  it('quotes the x402 price per valid lead in the 402 challenge', async () => {
    const response = await service.app.request('/v1/leads/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ leads: [CLEAN_NL, { country: 'DE' }, SANCTIONED, FOREIGN_IBAN] }),
    })
    expect(response.status).toBe(402)
    const body = (await response.json()) as { accepts: { maxAmountRequired?: string; amount?: string }[] }
    const amount = body.accepts[0]?.maxAmountRequired ?? body.accepts[0]?.amount
    // Three valid leads at 0.10 each; the invalid one is not priced.
    expect(amount).toBe((usd('0.10') * 3n).toString())
  })

  it('refuses sandbox keys with 403', async () => {
    const { status, body } = await post(CLEAN_NL, sandboxKey)
    expect(status).toBe(403)
    expect(JSON.stringify(body)).toMatch(/sandbox/i)
  })

  it('serves leads_verify over MCP with the same batch shape as REST', async () => {
    const server = await listen(service)
    const client = new Client({ name: 'test-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { 'X-API-Key': liveKey } },
      }),
    )
    try {
      const tools = await client.listTools()
      expect(tools.tools.map((t) => t.name)).toContain('leads_verify')
      const result = await client.callTool({
        name: 'leads_verify',
        arguments: { leads: [CLEAN_NL, { country: 'DE' }, FOREIGN_IBAN] },
      })
      expect(result.isError).toBeFalsy()
      const tool = result.structuredContent as Body
      const rest = (await post({ leads: [CLEAN_NL, { country: 'DE' }, FOREIGN_IBAN] })).body
      expect(tool.leads.map((l) => [l.status, l.verdict, l.lead_score])).toEqual(
        rest.leads.map((l) => [l.status, l.verdict, l.lead_score]),
      )
      expect(tool.summary).toEqual(rest.summary)
    } finally {
      await client.close()
      await server.close()
    }
  })

  it('writes the scoring and every flag with its action in the methodology', async () => {
    const response = await service.app.request('/v1/methodology')
    const text = await response.text()
    expect(text).toContain('## Lead verification')
    for (const [code, rule] of Object.entries(LEAD_FLAGS))
      expect(text, code).toMatch(
        new RegExp(`\\| \`${code}\` +\\| ${rule.severity} +\\| ${rule.penalty} +\\| \`${rule.action}\` +\\|`),
      )
    for (const [check, points] of Object.entries(LEAD_CHECK_POINTS))
      expect(text, check).toMatch(new RegExp(`\\| \`${check}\` +\\|.*\\| ${points} +\\|`))
    const openapi = (await (await service.app.request('/openapi.json')).json()) as {
      paths: Record<string, { post?: { operationId?: string } }>
    }
    expect(openapi.paths['/v1/leads/verify']?.post).toBeDefined()
  })
})
