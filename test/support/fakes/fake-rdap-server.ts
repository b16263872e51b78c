import type { FakeBehaviour, FakeCommonOptions } from './fake-behaviour.ts'
import { type FakeHttpServer, type FakeResponse, startFakeHttpServer } from './fake-http-server.ts'

/**
 * Hand-made RDAP domain objects in the RFC 9083 shape registries send (the `.com` one modelled
 * on Verisign's answers with an IANA registrar id and expiration; the `.nl` one on SIDN's,
 * which has no expiration event).
 */
export const RDAP_FAKE_DOMAINS: Record<string, unknown> = {
  'example.com': {
    rdapConformance: [
      'rdap_level_0',
      'icann_rdap_technical_implementation_guide_0',
      'icann_rdap_response_profile_0',
    ],
    objectClassName: 'domain',
    handle: '2336799_DOMAIN_COM-VRSN',
    ldhName: 'EXAMPLE.COM',
    links: [
      {
        value: 'https://rdap.verisign.com/com/v1/domain/EXAMPLE.COM',
        rel: 'self',
        href: 'https://rdap.verisign.com/com/v1/domain/EXAMPLE.COM',
        type: 'application/rdap+json',
      },
    ],
    status: ['client delete prohibited', 'client transfer prohibited', 'client update prohibited'],
    entities: [
      {
        objectClassName: 'entity',
        handle: '376',
        roles: ['registrar'],
        publicIds: [{ type: 'IANA Registrar ID', identifier: '376' }],
        vcardArray: [
          'vcard',
          [
            ['version', {}, 'text', '4.0'],
            ['fn', {}, 'text', 'RESERVED-Internet Assigned Numbers Authority'],
          ],
        ],
      },
    ],
    events: [
      { eventAction: 'registration', eventDate: '1995-08-14T04:00:00Z' },
      { eventAction: 'expiration', eventDate: '2025-08-13T04:00:00Z' },
      { eventAction: 'last changed', eventDate: '2024-08-14T07:01:34Z' },
      { eventAction: 'last update of RDAP database', eventDate: '2025-05-30T10:00:00Z' },
    ],
    secureDNS: { delegationSigned: true },
    nameservers: [
      { objectClassName: 'nameserver', ldhName: 'A.IANA-SERVERS.NET' },
      { objectClassName: 'nameserver', ldhName: 'B.IANA-SERVERS.NET' },
    ],
    notices: [{ title: 'Terms of Use', description: ['Service subject to Terms of Use.'] }],
  },
  'voorbeeld.nl': {
    rdapConformance: ['rdap_level_0'],
    objectClassName: 'domain',
    ldhName: 'voorbeeld.nl',
    status: ['active'],
    entities: [
      {
        objectClassName: 'entity',
        handle: 'regr-0001',
        roles: ['registrar'],
        vcardArray: [
          'vcard',
          [
            ['version', {}, 'text', '4.0'],
            ['fn', {}, 'text', 'Voorbeeld Registrar B.V.'],
          ],
        ],
      },
    ],
    events: [
      { eventAction: 'registration', eventDate: '2024-05-01T10:00:00Z' },
      { eventAction: 'last changed', eventDate: '2025-01-10T09:30:00Z' },
    ],
    nameservers: [{ objectClassName: 'nameserver', ldhName: 'ns1.voorbeeld.nl' }],
  },
}

function rdapError(status: number, title: string, description: string[]): FakeResponse {
  return {
    status,
    headers: { 'content-type': 'application/rdap+json' },
    body: { rdapConformance: ['rdap_level_0'], errorCode: status, title, description },
  }
}

/** Errors for domain queries; `bootstrap_500` fails only the bootstrap file. */
export const RDAP_ERRORS: Record<string, FakeResponse> = {
  http_500: rdapError(500, 'Internal Server Error', ['The server encountered an error.']),
  http_503: rdapError(503, 'Service Unavailable', ['Service temporarily unavailable.']),
  http_429: rdapError(429, 'Too Many Requests', ['Query rate limit exceeded.']),
  http_400: rdapError(400, 'Bad Request', ['Invalid domain name.']),
  malformed: {
    status: 200,
    headers: { 'content-type': 'application/rdap+json' },
    body: '{"objectClassName": ',
  },
}

export interface FakeRdapOptions extends FakeCommonOptions {
  domains?: Record<string, unknown>
  /** TLDs the bootstrap maps to this fake. Default nl, com, be. */
  tlds?: string[]
}

export interface FakeRdapServer extends FakeHttpServer {
  /** `{url}/dns.json`, the bootstrap file listing this fake as RDAP server for `tlds`. */
  readonly bootstrapUrl: string
}

/** A fake IANA bootstrap plus RDAP server (`GET /dns.json`, `GET /rdap/domain/{name}`). */
export async function startFakeRdapServer(options: FakeRdapOptions = {}): Promise<FakeRdapServer> {
  const domains = options.domains ?? RDAP_FAKE_DOMAINS
  const tlds = options.tlds ?? ['nl', 'com', 'be']
  let selfUrl = ''
  const server = await startFakeHttpServer(
    'rdap',
    (request, behaviour: FakeBehaviour) => {
      if (request.path === '/dns.json') {
        if (behaviour.mode === 'error' && behaviour.error === 'bootstrap_500')
          return { status: 500, body: 'error' }
        return {
          status: 200,
          body: {
            description: 'RDAP bootstrap file for Domain Name System registrations',
            publication: '2025-05-20T17:00:01Z',
            services: [
              [tlds, [`${selfUrl}/rdap/`]],
              [['xn--unused'], ['https://rdap.example.invalid/']],
            ],
            version: '1.0',
          },
        }
      }
      if (behaviour.mode === 'error' && behaviour.error !== 'bootstrap_500') {
        return RDAP_ERRORS[behaviour.error ?? 'http_500'] ?? RDAP_ERRORS.http_500!
      }
      const match = /^\/rdap\/domain\/([^/]+)$/.exec(request.path)
      if (!match) return rdapError(404, 'Not Found', ['Unknown path'])
      const name = decodeURIComponent(match[1]!).toLowerCase()
      const domain = domains[name]
      return domain
        ? { status: 200, headers: { 'content-type': 'application/rdap+json' }, body: domain }
        : rdapError(404, 'Not Found', [`The domain ${name} was not found.`])
    },
    options,
  )
  selfUrl = server.url
  return Object.assign(server, { bootstrapUrl: `${server.url}/dns.json` })
}
