import { describe, expect, it } from 'vitest'
import { collectXmlRecords, detach } from './xml-stream.ts'

describe('detach', () => {
  it('changes no value: short, long, non-Latin, outside the BMP, and with a lone surrogate', () => {
    const values = [
      'short',
      'Lukashenko, Alexandr Grigorievich',
      'ЛУКАШЕНКО Александр Григорьевич — 🙂 𠀀',
      'lone \ud800 surrogate in a long enough value',
      'a lone low \udc00 surrogate, also long enough',
    ]
    for (const value of values) expect(detach(value)).toBe(value)
  })
})

describe('collectXmlRecords', () => {
  it("keeps every record's text and attributes as written, an attribute named __proto__ included", async () => {
    const xml =
      '<LIST dateGenerated="2026-02-27T00:00:00Z"><REC id="QDi.317" __proto__="kept" toString="also">' +
      '<NAME>Ahmad Abdullah Saleh al-Khazmari al-Zahrani</NAME><NAME>x</NAME></REC></LIST>'
    const { rootAttributes, records } = await collectXmlRecords(
      Buffer.from(xml, 'utf8'),
      new Set(['REC']),
      'un',
      'un_xml',
    )
    expect(rootAttributes.dateGenerated).toBe('2026-02-27T00:00:00Z')
    const [record] = records
    expect(Object.entries(record!.attributes)).toEqual([
      ['id', 'QDi.317'],
      ['__proto__', 'kept'],
      ['toString', 'also'],
    ])
    expect(record!.children.map((child) => child.text)).toEqual([
      'Ahmad Abdullah Saleh al-Khazmari al-Zahrani',
      'x',
    ])
  })
})
