import { domainToASCII } from 'node:url'
import { parse } from 'tldts'
import { invalid, type ValidationResult, valid } from './result.ts'

export type ParsedDomain = {
  /** Lowercase ASCII (punycode) hostname without a trailing dot. */
  hostname: string
  /** Registrable domain under the public suffix (e.g. example.co.uk for www.example.co.uk). */
  registrable_domain: string
  /** ICANN public suffix (e.g. co.uk). */
  public_suffix: string
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/**
 * Validates a bare hostname. Spec: "domain: bare hostname, no protocol, path or query".
 * Also refused: ports, userinfo, IP addresses, single labels such as localhost, public suffixes
 * alone (com, co.uk) and names under no ICANN suffix (example.test). Internationalised names are
 * accepted and normalised to punycode (bücher.de -> xn--bcher-kva.de); labels must be LDH,
 * 1-63 characters, 253 in total. One trailing dot (the DNS root) is dropped.
 */
export function validateDomain(input: string): ValidationResult<ParsedDomain> {
  if (input.length === 0) return invalid('must not be empty')
  if (/\s/.test(input)) return invalid('must not contain spaces')
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input))
    return invalid('must be a bare hostname without a protocol (e.g. example.com, not https://example.com)')
  if (/[/?#]/.test(input)) return invalid('must be a bare hostname without a path, query or fragment')
  if (input.includes('@')) return invalid('must be a bare hostname without user information')
  if (input.includes(':') || input.startsWith('['))
    return invalid('must be a hostname without a port (and not an IPv6 address)')
  const withoutRoot = input.endsWith('.') ? input.slice(0, -1) : input
  const ascii = domainToASCII(withoutRoot.toLowerCase())
  if (ascii === '') return invalid('is not a valid hostname (invalid characters or internationalised name)')
  if (ascii.length > 253) return invalid('must be at most 253 characters')
  const labels = ascii.split('.')
  if (labels.some((label) => label.length === 0))
    return invalid('must not contain empty labels (consecutive or leading dots)')
  if (labels.some((label) => label.length > 63))
    return invalid('must not have labels longer than 63 characters')
  if (!labels.every((label) => LABEL.test(label))) {
    return invalid('must have labels of only letters, digits and inner hyphens')
  }
  const parsed = parse(ascii)
  if (parsed.isIp) return invalid('must be a hostname, not an IP address')
  if (parsed.publicSuffix === null || parsed.isIcann !== true)
    return invalid('must end in a public top-level domain')
  if (parsed.domain === null)
    return invalid(
      'must contain a registrable domain, not only a public suffix (e.g. example.co.uk, not co.uk)',
    )
  return valid({ hostname: ascii, registrable_domain: parsed.domain, public_suffix: parsed.publicSuffix })
}
