import { describe, expect, it } from 'vitest'
import { addressSubjectOf, mailboxOf } from './signup-subjects.ts'

describe('mailboxOf', () => {
  it.each([
    ['Buyer@Example.com', 'buyer@example.com'],
    ['buyer+sandbox@example.com', 'buyer@example.com'],
    ['BUYER+a+b@EXAMPLE.COM.', 'buyer@example.com'],
    ['j.o.h.n+x@gmail.com', 'john@gmail.com'],
    ['John.Doe@googlemail.com', 'johndoe@gmail.com'],
    // Dots matter elsewhere: two mailboxes.
    ['j.doe@example.com', 'j.doe@example.com'],
    // A local part that is only a tag is kept as it is.
    ['+tag@example.com', '+tag@example.com'],
  ])('%s counts as %s', (email, mailbox) => {
    expect(mailboxOf(email)).toBe(mailbox)
  })
})

describe('addressSubjectOf', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['not-an-address', 'not-an-address'],
  ])('%s counts as %s', (address, subject) => {
    expect(addressSubjectOf(address)).toBe(subject)
  })
})
