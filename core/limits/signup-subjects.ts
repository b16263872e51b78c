import ipaddr from 'ipaddr.js'

/** Mail domains that ignore dots in the local part (and are one mailbox under both names). */
const DOTLESS_DOMAINS: Readonly<Record<string, string>> = {
  'gmail.com': 'gmail.com',
  'googlemail.com': 'gmail.com',
}

/**
 * The mailbox an e-mail address reaches, as the key-creation limit counts it, so trivial variants
 * of one address count as one: letter case ignored (mail providers do), a `+tag` dropped (plus
 * addressing delivers `a+x@` to `a@` at every large provider), a trailing dot of the domain dropped,
 * and for Gmail the dots of the local part and the `googlemail.com` alias. The address stored with
 * the key stays as given.
 */
export function mailboxOf(email: string): string {
  const text = email.trim().toLowerCase()
  const at = text.lastIndexOf('@')
  if (at < 0) return text
  let local = text.slice(0, at)
  let domain = text.slice(at + 1).replace(/\.+$/, '')
  const plus = local.indexOf('+')
  if (plus > 0) local = local.slice(0, plus)
  const dotless = DOTLESS_DOMAINS[domain]
  if (dotless) {
    domain = dotless
    local = local.replaceAll('.', '')
  }
  return `${local}@${domain}`
}

/**
 * The client address as the key-creation limit counts it: an IPv4 address as it is (an IPv4-mapped
 * IPv6 address as its IPv4 form), an IPv6 address by its /64 prefix (one subscriber's network: a
 * host picks any of its 2^64 addresses at will), anything unparseable as given.
 */
export function addressSubjectOf(address: string): string {
  if (!ipaddr.isValid(address)) return address.toLowerCase()
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv4') return parsed.toString()
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4)
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`
}
