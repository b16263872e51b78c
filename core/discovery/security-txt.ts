/** What security.txt needs from config (SECURITY_CONTACT, SECURITY_POLICY_URL, SECURITY_TXT_EXPIRES). */
export interface SecurityTxtConfig {
  /** `mailto:` or `https:` URIs; null: a clearly marked placeholder is served. */
  contacts: readonly string[] | null
  policyUrl?: string
  /** A fixed expiry; absent: 180 days from now on every request (RFC 9116 advises under a year). */
  expires?: Date
  /** PUBLIC_BASE_URL. */
  baseUrl: string
}

const DEFAULT_EXPIRY_DAYS = 180

/**
 * `/.well-known/security.txt` per RFC 9116: Contact (required, one or more), Expires (required),
 * Canonical, Policy and Preferred-Languages. Without SECURITY_CONTACT the Contact is a placeholder
 * address at the public host, preceded by a comment saying so.
 */
export function buildSecurityTxt(config: SecurityTxtConfig, now: Date): string {
  const lines: string[] = []
  const contacts = config.contacts && config.contacts.length > 0 ? config.contacts : null
  if (!contacts) {
    lines.push('# PLACEHOLDER: the operator has not set SECURITY_CONTACT; this address may not be monitored.')
    lines.push(`Contact: mailto:security@${new URL(config.baseUrl).hostname}`)
  } else {
    for (const contact of contacts) lines.push(`Contact: ${contact}`)
  }
  const expires = config.expires ?? new Date(now.getTime() + DEFAULT_EXPIRY_DAYS * 86_400_000)
  lines.push(`Expires: ${expires.toISOString().replace(/\.\d{3}Z$/, 'Z')}`)
  lines.push(`Canonical: ${config.baseUrl}/.well-known/security.txt`)
  if (config.policyUrl) lines.push(`Policy: ${config.policyUrl}`)
  lines.push('Preferred-Languages: en, nl')
  return `${lines.join('\n')}\n`
}
