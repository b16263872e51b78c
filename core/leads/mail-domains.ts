import { isDisposableEmailDomain } from 'disposable-email-domains-js'

/**
 * The disposable-mail list: the npm package `disposable-email-domains-js` (CC0), a packaged copy
 * of the community-maintained disposable-email-domains blocklist
 * (github.com/disposable-email-domains/disposable-email-domains). Stated in every lead answer so
 * a reader knows how old the list is; a test checks the version against the installed package.
 */
export const DISPOSABLE_MAIL_LIST = {
  package: 'disposable-email-domains-js',
  version: '1.26.0',
  published: '2026-09-21',
} as const

/**
 * Consumer free-mail providers (hand-kept; no maintained npm list is installed in this project).
 * Source: the providers' own domains: the global webmail services (Google, Microsoft, Yahoo,
 * Apple, AOL, GMX/web.de, Proton, Zoho, Yandex, mail.com) and the consumer ISPs of the
 * Netherlands and Belgium whose mail addresses people use for business leads (KPN, Ziggo,
 * Telenet, Proximus/Skynet, ...). A free-mail address is a real mailbox, just not a company one.
 */
export const FREE_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  // Google, Microsoft, Yahoo, Apple, AOL
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'outlook.nl',
  'outlook.be',
  'hotmail.com',
  'hotmail.nl',
  'hotmail.be',
  'live.com',
  'live.nl',
  'live.be',
  'msn.com',
  'yahoo.com',
  'yahoo.nl',
  'yahoo.fr',
  'ymail.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  // European webmail
  'gmx.com',
  'gmx.net',
  'gmx.de',
  'web.de',
  'proton.me',
  'protonmail.com',
  'pm.me',
  'zoho.com',
  'yandex.com',
  'mail.com',
  'tutanota.com',
  'tuta.io',
  // Dutch consumer ISPs
  'kpnmail.nl',
  'kpnplanet.nl',
  'planet.nl',
  'hetnet.nl',
  'home.nl',
  'ziggo.nl',
  'upcmail.nl',
  'chello.nl',
  'casema.nl',
  'xs4all.nl',
  'zeelandnet.nl',
  'tele2.nl',
  'online.nl',
  'telfort.nl',
  // Belgian consumer ISPs
  'telenet.be',
  'skynet.be',
  'proximus.be',
  'scarlet.be',
  'voo.be',
])

/** What the lists say about a mail domain (lower-case, no trailing dot). */
export interface MailDomainKind {
  disposable: boolean
  free_mail: boolean
}

export function mailDomainKind(domain: string): MailDomainKind {
  const name = domain.trim().toLowerCase().replace(/\.$/, '')
  return { disposable: isDisposableEmailDomain(name), free_mail: FREE_MAIL_DOMAINS.has(name) }
}
