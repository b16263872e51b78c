import { isIP } from 'node:net'
import { checkServerIdentity, connect, type PeerCertificate, type TLSSocket } from 'node:tls'
import { checkHost, type LookupAll } from './address-guard.ts'
import type { CircuitBreaker } from './circuit-breaker.ts'
import { normaliseDomain } from './rdap.ts'
import { runSourceCall } from './source-call.ts'
import { resolveCommon, type SourceClientOptions } from './source-options.ts'
import { type SourceResult, UpstreamFailure } from './source-result.ts'

/** What the TLS handshake with a host showed about its certificate. */
export interface TlsCertificateInfo {
  host: string
  port: number
  /** The address connected to (resolved once and pinned). */
  address: string
  /** Chain verified against the trusted CAs, hostname matches, within validity by the injected clock. */
  ssl_valid: boolean
  /**
   * Why not valid: OpenSSL's verification code (`DEPTH_ZERO_SELF_SIGNED_CERT`,
   * `UNABLE_TO_VERIFY_LEAF_SIGNATURE`, `CERT_HAS_EXPIRED`, ...), `HOSTNAME_MISMATCH`,
   * `CERT_NOT_YET_VALID`, or a handshake error code. null when valid.
   */
  invalid_reason: string | null
  /** Issuer organisation, or its common name. */
  issuer: string | null
  subject: string | null
  valid_from: string | null
  valid_to: string | null
  /** Whole days until `valid_to` by the injected clock (negative once expired). */
  days_remaining: number | null
  protocol: string | null
}

export interface TlsProbeOptions extends Omit<SourceClientOptions, 'fetch'> {
  /** Default 443; tests point it at a local server. */
  port?: number
  /** Extra trusted CAs (PEM), replacing Node's bundle when given: tests trust their own CA. */
  ca?: string | string[]
  /** Only in tests against fakes on 127.0.0.1; production refuses private targets (SSRF). */
  allowPrivateAddresses?: boolean
  lookup?: LookupAll
}

export interface TlsProbe {
  readonly source: 'tls'
  readonly breaker: CircuitBreaker
  probe(host: string): Promise<SourceResult<TlsCertificateInfo>>
}

const DAY_MS = 86_400_000

/**
 * TLS certificate probe (DESIGN "Upstream sources": TLS certificate probe). The host comes
 * from users, so it is resolved once, refused when any address is private/loopback/link-local
 * (address guard), and the connection goes to the checked address with SNI set to the name.
 * An invalid certificate is an ok answer (`ssl_valid: false`); a refused, reset or silent
 * connection is `unavailable`. A name that does not resolve is `unavailable` / `unresolvable`
 * and, like a refused address, does not count against the breaker (it says nothing about our
 * network).
 */
export function createTlsProbe(options: TlsProbeOptions = {}): TlsProbe {
  const { clock, timeoutMs, breaker } = resolveCommon(options)
  const port = options.port ?? 443

  return {
    source: 'tls',
    breaker,
    probe(host) {
      const literal = isIP(host.replace(/^\[|\]$/g, '')) !== 0
      const name = literal ? host.replace(/^\[|\]$/g, '') : normaliseDomain(host)
      return runSourceCall({
        source: 'tls',
        clock,
        timeoutMs,
        breaker,
        call: async (signal) => {
          if (!name) throw new UpstreamFailure('request_rejected', `not a host name: ${host}`)
          const check = await checkHost(name, {
            allowPrivateAddresses: options.allowPrivateAddresses,
            lookup: options.lookup,
          })
          if (!check.ok) {
            throw new UpstreamFailure(
              check.reason === 'private_address' ? 'address_refused' : 'unresolvable',
              check.detail,
            )
          }
          const socket = await handshake(check.address, port, literal ? undefined : name, options.ca, signal)
          try {
            return describe(socket, name, port, check.address, clock.now())
          } finally {
            if (!(socket instanceof HandshakeRefused)) socket.destroy()
          }
        },
      })
    },
  }
}

function handshake(
  address: string,
  port: number,
  servername: string | undefined,
  ca: string | string[] | undefined,
  signal: AbortSignal,
): Promise<TLSSocket | HandshakeRefused> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port, servername, ca, rejectUnauthorized: false })
    const onAbort = () => {
      socket.destroy()
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    socket.once('secureConnect', () => {
      signal.removeEventListener('abort', onAbort)
      resolve(socket)
    })
    socket.once('error', (error: NodeJS.ErrnoException) => {
      signal.removeEventListener('abort', onAbort)
      socket.destroy()
      const code = error.code ?? ''
      if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) resolve(new HandshakeRefused(code))
      else reject(error)
    })
  })
}

/** A TLS-level refusal (alert, protocol mismatch): an answer about the host's TLS, not an outage. */
class HandshakeRefused {
  readonly code: string

  constructor(code: string) {
    this.code = code
  }
}

function describe(
  socket: TLSSocket | HandshakeRefused,
  host: string,
  port: number,
  address: string,
  now: Date,
): TlsCertificateInfo {
  const base = { host, port, address }
  if (socket instanceof HandshakeRefused) {
    return {
      ...base,
      ssl_valid: false,
      invalid_reason: socket.code,
      issuer: null,
      subject: null,
      valid_from: null,
      valid_to: null,
      days_remaining: null,
      protocol: null,
    }
  }
  const cert = socket.getPeerCertificate(false) as PeerCertificate | Record<string, never>
  if (!cert || Object.keys(cert).length === 0) {
    return { ...base, ...emptyCert(), invalid_reason: 'NO_PEER_CERTIFICATE', protocol: socket.getProtocol() }
  }
  const peer = cert as PeerCertificate
  const validFrom = new Date(peer.valid_from)
  const validTo = new Date(peer.valid_to)
  const authError = socket.authorizationError
  const authCode = authError ? ((authError as NodeJS.ErrnoException).code ?? String(authError)) : null
  const hostError = checkServerIdentity(host, peer)
  let invalid: string | null = null
  // Node reports a name mismatch through authorizationError when SNI is set
  if (hostError || authCode === 'ERR_TLS_CERT_ALTNAME_INVALID') invalid = 'HOSTNAME_MISMATCH'
  else if (authCode) invalid = authCode
  else if (now.getTime() > validTo.getTime()) invalid = 'CERT_HAS_EXPIRED'
  else if (now.getTime() < validFrom.getTime()) invalid = 'CERT_NOT_YET_VALID'
  return {
    ...base,
    ssl_valid: socket.authorized && invalid === null,
    invalid_reason: invalid,
    issuer: field(peer.issuer, 'O') ?? field(peer.issuer, 'CN'),
    subject: field(peer.subject, 'CN'),
    valid_from: Number.isNaN(validFrom.getTime()) ? null : validFrom.toISOString(),
    valid_to: Number.isNaN(validTo.getTime()) ? null : validTo.toISOString(),
    days_remaining: Number.isNaN(validTo.getTime())
      ? null
      : Math.floor((validTo.getTime() - now.getTime()) / DAY_MS),
    protocol: socket.getProtocol(),
  }
}

function emptyCert() {
  return {
    ssl_valid: false,
    issuer: null,
    subject: null,
    valid_from: null,
    valid_to: null,
    days_remaining: null,
  }
}

function field(names: PeerCertificate['issuer'] | undefined, key: string): string | null {
  const value = (names as unknown as Record<string, string | string[] | undefined> | undefined)?.[key]
  if (Array.isArray(value)) return value[0] ?? null
  return value ?? null
}
