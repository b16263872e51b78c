import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { DISPOSABLE_MAIL_LIST, mailDomainKind } from './mail-domains.ts'

describe('mail domain lists', () => {
  it('states the version of the installed disposable-mail package', () => {
    const require = createRequire(import.meta.url)
    const manifest = JSON.parse(
      readFileSync(require.resolve(`${DISPOSABLE_MAIL_LIST.package}/package.json`), 'utf8'),
    ) as { version: string }
    expect(DISPOSABLE_MAIL_LIST.version).toBe(manifest.version)
    expect(DISPOSABLE_MAIL_LIST.published).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  })

  it('tells disposable, free-mail and company domains apart', () => {
    expect(mailDomainKind('mailinator.com')).toEqual({ disposable: true, free_mail: false })
    expect(mailDomainKind('Gmail.com.')).toEqual({ disposable: false, free_mail: true })
    expect(mailDomainKind('telenet.be')).toEqual({ disposable: false, free_mail: true })
    expect(mailDomainKind('testbvdonald.nl')).toEqual({ disposable: false, free_mail: false })
  })
})
