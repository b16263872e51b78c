import { describe, expect, it } from 'vitest'
import {
  abjadSkeleton,
  abjadSkeletons,
  analyseName,
  consonantSkeleton,
  consonantSkeletons,
} from './fuzzy-name-parts.ts'
import { forgetFuzzyWordMemos, screenNameFuzzy } from './fuzzy-screen.ts'
import { areNameVariants, latinFormsOfAbjad } from './given-name-variants.ts'
import { evidenceAdjustments } from './match-evidence.ts'
import { buildSanctionsIndexFromEntries } from './sanctions-index.ts'
import { screenName } from './sanctions-screen.ts'
import type { SanctionsEntry } from './types.ts'

function entry(id: string, name: string, extra: Partial<SanctionsEntry> = {}): SanctionsEntry {
  return {
    list: 'ofac_sdn',
    entry_id: id,
    entry_type: 'person',
    name,
    aliases: [],
    programmes: ['SDGT'],
    countries: [],
    listed_on: null,
    identifiers: [],
    ...extra,
  }
}

const entries: SanctionsEntry[] = [
  entry('1', 'PUTIN, Vladimir Vladimirovich', {
    aliases: [{ name: 'Путин, Владимир Владимирович', kind: 'original_script' }],
    birth_dates: ['1952-10-07'],
    nationalities: ['RU'],
    countries: ['RU'],
    identifiers: [{ type: 'passport', value: '100000001', country: 'RU', label: 'Passport' }],
  }),
  entry('2', 'Muhammad bin Salman'),
  entry('3', 'AL-ASSAD, Bashar', { aliases: [{ name: 'الأسد, بشار', kind: 'original_script' }] }),
  entry('4', 'OOO Romashka', { entry_type: 'entity' }),
  entry('5', 'AL QAIDA', { entry_type: 'entity' }),
  entry('6', 'ZEMLYANIKA TRADING LIMITED', { entry_type: 'entity' }),
  entry('7', 'محمد حمدي صادق', { aliases: [] }),
  entry('8', 'KIM, Jong Un', { aliases: [{ name: 'Hong Gildong', kind: 'aka', quality: 'weak' }] }),
]
const index = buildSanctionsIndexFromEntries(entries)
const ids = (name: string, options = {}) =>
  screenNameFuzzy(index, name, options).matches.map((match) => match.entry_id)
const first = (name: string, options = {}) => screenNameFuzzy(index, name, options).matches[0]

describe('fuzzy name analysis', () => {
  it('transliterates every part to lower-case ASCII (Cyrillic, Greek, Arabic, Han, Hangul syllables)', () => {
    expect(analyseName('Путин Владимир').parts.map((part) => part.text)).toEqual(['putin', 'vladimir'])
    expect(analyseName('Ιωάννης').parts.map((part) => part.text)).toEqual(['ioannis'])
    expect(analyseName('김정은').parts.map((part) => part.text)).toEqual(['gim', 'jeong', 'eun'])
    expect(analyseName('王国英').parts.map((part) => part.text)).toEqual(['wang', 'guo', 'ying'])
    expect(analyseName('Müller-Lüdenscheidt').parts.map((part) => part.text)).toEqual([
      'muller',
      'ludenscheidt',
    ])
  })

  it('marks honorifics, legal forms (also written out or misspelled), particles and articles', () => {
    const roles = (name: string, kind: 'person' | 'organization' | 'any' = 'any') =>
      analyseName(name, kind).parts.map((part) => `${part.text}:${part.role}`)
    expect(roles('Mr John Smith', 'person')).toEqual(['mr:honorific', 'john:name', 'smith:name'])
    expect(roles('ООО Ромашка', 'organization')).toEqual(['ooo:legal_form', 'romashka:name'])
    expect(roles('Acme Holding B.V.', 'organization')).toEqual(['acme:name', 'holding:name', 'bv:legal_form'])
    expect(roles('Joint Stock Company Rimera')).toEqual([
      'joint:legal_form',
      'stock:legal_form',
      'company:legal_form',
      'rimera:name',
    ])
    expect(roles('Teamford Enterprises Limitde')).toContain('limitde:legal_form')
    expect(roles('Salman bin Muhammad')).toEqual(['salman:name', 'bin:particle', 'muhammad:name'])
    expect(roles('Bashar al Assad')).toEqual(['bashar:name', 'al:article', 'assad:name'])
  })

  it('reads Latin titles only in Latin script: عامر (Amer) folds to "mr" and is a name', () => {
    expect(analyseName('خيتي, عامر تيسير', 'person').parts.map((part) => part.role)).toEqual([
      'name',
      'name',
      'name',
    ])
    expect(analyseName('Mr Amer Kheiti', 'person').parts.map((part) => part.role)).toEqual([
      'honorific',
      'name',
      'name',
    ])
  })

  it('reads "Surname, Given names" in spoken order so particles keep their place', () => {
    const parts = analyseName('AL-WALID, Mahfouz Ould', 'person').parts
    expect(parts.map((part) => `${part.text}:${part.segment}`)).toEqual([
      'mahfouz:0',
      'ould:1',
      'al:1',
      'walid:1',
    ])
  })

  it('gives a Latin spelling and the Arabic letters the same consonant skeleton', () => {
    expect(consonantSkeleton('muhammad')).toBe('mhmd')
    expect(consonantSkeleton('mohamed')).toBe('mhmd')
    expect(abjadSkeleton('محمد')).toBe('mhmd')
    // ت + ح are two letters, not the "th" of ث.
    expect(abjadSkeleton('اتحادی')).toBe(consonantSkeleton('ettehadi'))
  })

  it('reads an ambiguous Latin spelling every way it may have been written in Arabic script', () => {
    const same = (latin: string, arabic: string) =>
      consonantSkeletons(latin).some((reading) => abjadSkeletons(arabic).includes(reading))
    // th is ت + ح as well as ث ("Fathi" / فتحی): a final ح stays, a final ه or ة does not.
    expect(same('fathi', 'فتحی')).toBe(true)
    expect(same('fatemeh', 'فاطمه')).toBe(true)
    expect(same('saleh', 'صالح')).toBe(true)
    // c and ch may be چ (Turkish ç, Persian ch): "Kocak" / کوچک.
    expect(same('kocak', 'کوچک')).toBe(true)
    // ژ is written zh or j: "Abedinejad" / "Nezhad" / نژاد.
    expect(same('nejad', 'نژاد')).toBe(true)
    expect(same('nezhad', 'نژاد')).toBe(true)
    // g is ج in Egyptian spellings: "Gamal" / جمال.
    expect(same('gamal', 'جمال')).toBe(true)
    // sh is also س + ح: "Eshaghi" / اسحقی.
    expect(same('eshaghi', 'اسحقی')).toBe(true)
    // A first waw or yeh is a consonant ("Vali" / ولی, "Wahed" / الواحد), a later one a vowel.
    expect(same('vali', 'ولی')).toBe(true)
    expect(same('wahed', 'الواحد')).toBe(true)
    expect(same('ayoub', 'أيوب')).toBe(true)
    // Presentation forms are their letters (NFKC).
    expect(abjadSkeletons('ﺧﺎﺩﻡ')).toEqual(abjadSkeletons('خادم'))
    // Different names stay different.
    expect(same('fathi', 'فاطمه')).toBe(false)
    expect(same('kocak', 'کریم')).toBe(false)
  })

  it('keeps the number of readings of a long Latin word bounded', () => {
    expect(consonantSkeletons('chughtaichghazichgh').length).toBeLessThanOrEqual(12)
    expect(consonantSkeletons('abdul')).toEqual(expect.arrayContaining(['bdl', 'bd']))
  })

  it('knows given-name variants from the Wikidata-based variant table', () => {
    expect(areNameVariants('mohammed', 'muhammad')).toBe(true)
    expect(areNameVariants('sergey', 'sergei')).toBe(true)
    expect(areNameVariants('sergey', 'sergeevich')).toBe(false)
  })
})

describe('screenNameFuzzy: Latin spellings of names listed in Arabic script only', () => {
  // Real list names (OFAC SDN) whose Latin spelling the list also gives; here only the Arabic one is indexed.
  const persian = buildSanctionsIndexFromEntries([
    entry('p1', 'فتحی, مورد'),
    entry('p2', 'کوچک, علی'),
    entry('p3', 'قلی زاده, ولی'),
    entry('p4', 'عبداللهی نژاد, بهرام'),
    entry('p5', 'فارسانی, علیرضا بابایی'),
    entry('p6', 'گشتاسبی, امان الله'),
    entry('p7', 'عبد الواحد شفيق'),
    entry('p8', 'عياد, عدنان علي'),
    entry('p9', 'شمس ابادی, حسین'),
    entry('p10', 'پورجمشیدیان, علی اکبر'),
  ])
  const found = (name: string) =>
    screenNameFuzzy(persian, name).matches.map((match) => `${match.entry_id}:${match.match_type}`)

  it('finds them through the consonant classes of both scripts', () => {
    expect(found('Murad Fathi')).toContain('p1:name_transliterated')
    expect(found('Ali KOCAK')).toContain('p2:name_transliterated')
    expect(found('Vali Qolizadeh')).toContain('p3:name_transliterated')
    expect(found('Bahram ABDOLLAHINEJAD')).toContain('p4:name_transliterated')
    expect(found('Alireza Babaei Farsani')).toContain('p5:name_transliterated')
    // One Latin word against two Arabic ones with a common second word (الله).
    expect(found('Amanolah GOSHTASBI')).toContain('p6:name_transliterated')
    // "Abdul" against عبد written apart from the next word.
    expect(found('ABDUL WAHED SHAFIQ')).toContain('p7:name_transliterated')
    // A Persian compound of two common words, joined ("Hamidiravari" / حمیدی راوری).
    const hamidi = buildSanctionsIndexFromEntries([entry('r1', 'حمیدی راوری, رضا')])
    expect(
      screenNameFuzzy(hamidi, 'Reza Hamidiravari').matches[0]?.score_breakdown.parts.find(
        (part) => part.method === 'split',
      ),
    ).toEqual({ query: 'hamidiravari', listed: 'hmydy rwry', similarity: 0.95, method: 'split' })
    // A first half of three letters that spells the whole Arabic word ("Ali" / علی).
    expect(found('Aliakbar POURJAMSHIDIAN')).toContain('p10:name_transliterated')
  })

  it('reads a Latin k also as خ', () => {
    expect(consonantSkeletons('kaliq')).toEqual(['klk', 'xlk'])
    // Real list name (OFAC SDN) and the Latin name the list gives for the same person.
    const banai = buildSanctionsIndexFromEntries([entry('b1', 'البناى, سليمان عبد الخالق رضا حسن')])
    expect(screenNameFuzzy(banai, 'Sulaiman Abdulkaliq Al Banai').matches[0]?.entry_id).toBe('b1')
  })

  it('splits one long Latin word into three Arabic-script words, in their order', () => {
    // Real list names (OFAC SDN) and the Latin names the list gives for the same persons.
    const compounds = buildSanctionsIndexFromEntries([
      entry('c1', 'عابدینی نجف آبادی, محمد'),
      entry('c2', 'فتاحی نوجو کامبری, علیرضا'),
      entry('c3', 'نجف عابدینی آبادی, محمد'),
    ])
    const match = screenNameFuzzy(compounds, 'Mohammad Abedininajafabadi').matches[0]!
    expect(match.entry_id).toBe('c1')
    expect(match.score_breakdown.parts).toContainEqual({
      query: 'abedininajafabadi',
      listed: 'bdyny njf abdy',
      similarity: 0.95,
      method: 'split',
    })
    expect(screenNameFuzzy(compounds, 'Alireza Fatahinojokambari').matches[0]?.entry_id).toBe('c2')
    // The same three words in another order are not that word.
    expect(screenNameFuzzy(compounds, 'Mohammad Abedininajafabadi').matches.map((m) => m.entry_id)).toEqual([
      'c1',
    ])
  })

  it('on a tie, pairs a word where it leaves a wider pair free', () => {
    // Real list name (UN) and the Latin name the list gives for the same person: "Allah" could
    // take either الله; taking the first would leave "Hamdullah" (حمد الله) nothing to pair with.
    const hamdullah = buildSanctionsIndexFromEntries([entry('a1', 'حمد الله الله نور')])
    const match = screenNameFuzzy(hamdullah, 'HAMDULLAH ALLAH NOOR').matches[0]!
    expect(match.entry_id).toBe('a1')
    expect(match.score_breakdown.parts).toContainEqual({
      query: 'hamdullah',
      listed: 'hmd llh',
      similarity: 0.95,
      method: 'split',
    })
    expect(match.score_breakdown.unmatched_listed_parts).toEqual([])
    // The same with Latin words on both sides (OFAC SDN): "Ali" leaves "Alihasan" its "Ali Hasan".
    const ajmi = buildSanctionsIndexFromEntries([entry('a2', "AL-'AJMI, 'Ali Hasan 'Ali")])
    expect(screenNameFuzzy(ajmi, "'Alihasan 'Ali AL-'AJMI").matches[0]?.entry_id).toBe('a2')
  })

  it('reads a compound also without the article inside it, as Latin spellings often write it', () => {
    // Real list name (OFAC SDN) and the Latin name the list gives for the same person.
    expect(abjadSkeletons('ابوالقاسم')).toEqual(['blksm', 'bksm'])
    expect(abjadSkeletons('عبدالرحمن')).toContain('bdrhmn') // "Abdurrahman"
    // Not inside a word whose first three letters are not a word of their own (جلالیان, Jalalian).
    expect(abjadSkeletons('جلالیان')).toEqual(['jlln'])
    const salevati = buildSanctionsIndexFromEntries([entry('s1', 'صلواتی, ابوالقاسم')])
    expect(screenNameFuzzy(salevati, 'Abughasem Salevati').matches[0]?.entry_id).toBe('s1')
  })

  it('reads Seyed in front of a given name as a title, in Latin and Arabic script', () => {
    // Real list names (OFAC SDN) and the Latin name the list gives for the first.
    const seyed = buildSanctionsIndexFromEntries([
      entry('y1', 'پنجکی, یحیی حسینی'),
      entry('y2', 'حسینی, سید صادق'),
    ])
    const match = screenNameFuzzy(seyed, 'Seyed Yahya Hosseiny Panjaki').matches[0]!
    expect(match.entry_id).toBe('y1')
    expect(match.score_breakdown.ignored_parts).toEqual(['seyed'])
    expect(analyseName('سید صادق حسینی').parts.map((part) => part.role)).toEqual([
      'honorific',
      'name',
      'name',
    ])
    // سعيد (Saeed) folds to the same Latin letters and is a given name.
    expect(analyseName('سعيد صالح عبدربه').parts[0]!.role).toBe('name')
    // Sayyid is also a given name: a title only with two words after it, articles aside; other
    // titles keep their rule (two parts after them).
    expect(analyseName('Sayyid AL-DAJANI').parts[0]!.role).toBe('name')
    expect(analyseName('Dr AL-DAJANI').parts[0]!.role).toBe('honorific')
  })

  it('pairs a listed title with a query word that misspells it', () => {
    // A UN alias: "Mulleh" is not recognised as the title Mullah, so it must pair with it.
    const mullah = buildSanctionsIndexFromEntries([entry('m1', 'NOORZAI, Mullah Ahmed Shah')])
    const match = screenNameFuzzy(mullah, 'Mulleh Ahmed Shah Noorzai').matches[0]!
    expect(match.entry_id).toBe('m1')
    expect(match.score_breakdown.parts).toContainEqual(
      expect.objectContaining({ query: 'mulleh', listed: 'mullah' }),
    )
    expect(match.score_breakdown.ignored_parts).toEqual([])
  })

  it('reads a final ta marbuta as the feminine ending, a final heh after one consonant as h', () => {
    expect(abjadSkeletons('عزة')).toEqual(['d']) // "Azza"
    expect(abjadSkeletons('طه')).toEqual(['th']) // "Taha"
  })

  it('joins three Latin words with the article in the middle against one Arabic word', () => {
    // Real list name (OFAC SDN) and a Latin name the list gives for the same person.
    const hani = buildSanctionsIndexFromEntries([entry('h1', 'اسعد, هاني عبدالمجيد محمد')])
    const match = screenNameFuzzy(hani, "Hani 'Abd-al-Majid Muhammad As'ad").matches[0]!
    expect(match.entry_id).toBe('h1')
    expect(match.score_breakdown.parts).toContainEqual({
      query: 'abd al majid',
      listed: 'bdlmjyd',
      similarity: 0.95,
      method: 'joined',
    })
    expect(match.score_breakdown.unmatched_query_parts).toEqual([])
  })

  it('does not turn the extra readings into matches of other names', () => {
    // A split into halves of one consonant says too little ("zan" + "ella" / عدنان علي).
    expect(found('Zanella s.r.l.')).toEqual([])
    // "Abdul" without its l pairs with عبد only, not with any b-d word (ابادی).
    expect(found('Abdul Thomas')).toEqual([])
  })
})

describe('screenNameFuzzy: Latin forms the name source gives for Arabic-script names', () => {
  // Real list names (OFAC SDN) whose Latin names the list also gives; only the Arabic one is indexed.
  const listed = buildSanctionsIndexFromEntries([
    entry('t1', 'رحمة, ريمون زينه'),
    entry('t2', 'هيدموس, جوزيف ايليا'),
    entry('t3', 'موسى, عبدالرحمن ادو'),
    entry('t4', 'حمد, غازي'),
  ])
  const match = (name: string) =>
    screenNameFuzzy(listed, name, { threshold: 0.5 }).matches.find((m) => m.entry_id.startsWith('t'))

  it('pairs a Latin name with the Arabic spelling Wikidata gives for it', () => {
    expect(latinFormsOfAbjad('rymwn')).toContain('raymond')
    // "Raymond" / ريمون: the French d is not written in Arabic, so no skeleton finds it.
    const raymond = match('Raymond Zina Rahme')!
    expect(raymond.entry_id).toBe('t1')
    expect(raymond.match_score).toBeGreaterThanOrEqual(0.78)
    expect(raymond.score_breakdown.parts).toContainEqual({
      query: 'raymond',
      listed: 'rymwn',
      similarity: 0.95,
      method: 'variant',
    })
    // "Joseph" / جوزيف: the source pairs جوزيف with "Josef", a spelling variant of "Joseph".
    const joseph = match('Joseph Ilya Haidamous')!
    expect(joseph.score_breakdown.parts.find((part) => part.query === 'joseph')?.method).toBe('variant')
    // "Ghazi" / غازي: a skeleton of two consonants pairs at 0.85, the known form at 0.95.
    expect(
      match('Ghazi Hamad')!.score_breakdown.parts.find((part) => part.query === 'ghazi')?.similarity,
    ).toBe(0.95)
  })

  it('pairs a two-consonant word at 0.95 when the Latin word also writes its long vowels in order', () => {
    const zein = buildSanctionsIndexFromEntries([
      entry('z1', 'الزين, مازن حسان'),
      entry('z2', 'بهشتی راد, سعید'),
    ])
    const parts = (name: string) =>
      screenNameFuzzy(zein, name, { threshold: 0.5 }).matches[0]?.score_breakdown.parts
    // الزين is z-y-n, written in full by "Zein"; مازن is m-z-n, three consonants.
    expect(parts('Mazen Zein')).toContainEqual({
      query: 'zein',
      listed: 'lzyn',
      similarity: 0.95,
      method: 'transliteration',
    })
    // A final ه is written a or e: الدوله is d-w-l-h, and "Dawla" writes it in full.
    const dawla = buildSanctionsIndexFromEntries([entry('w1', 'الدوله, محمد')])
    expect(
      screenNameFuzzy(dawla, 'Mohammed Ahmed Al-Dawla').matches[0]?.score_breakdown.parts.find(
        (part) => part.query === 'dawla',
      )?.similarity,
    ).toBe(0.95)
    // راد folds to "rd" (the alef to nothing), as رضا does: "Reza" stays at 0.85 against it.
    expect(parts('Reza Asadi')?.find((part) => part.query === 'reza')?.similarity).toBe(0.85)
  })

  it('does not pair a name with another one whose Arabic letters fold alike', () => {
    // احمد and حمد are both "hmd" once folded; the forms of one ("Mohamed") must begin alike.
    expect(latinFormsOfAbjad('hmd')).toContain('mohamed')
    expect(match('Mohamed Ghazi')?.score_breakdown.parts.find((part) => part.query === 'mohamed')).toBe(
      undefined,
    )
  })
})

describe('screenNameFuzzy: a query that says more than the listed name', () => {
  // Real list names (OFAC SDN); the queries are Latin names the list gives for the same person.
  const listed = buildSanctionsIndexFromEntries([
    entry('d1', 'فراهانی, مجید'),
    entry('d2', 'دهقان, هادی'),
    entry('d3', 'المسلم, علي سعيد'),
    entry('d4', 'دودين, موسى محمد سالم'),
    entry('d5', 'ديفيد, يافي'),
    entry('d6', 'USHKO, Sergey'),
    entry('d7', 'JSC ANGSTREM-T', { entry_type: 'entity' }),
    entry('d8', 'عياد, عدنان علي'),
    entry('d9', 'Abdul Rahman'),
  ])
  const found = (name: string) => screenNameFuzzy(listed, name).matches.map((match) => match.entry_id)

  it('finds a listed person whose every word the query matches, with a family or father name more', () => {
    expect(found('Majid Dastjani Farahani')).toEqual(['d1'])
    // An extra word after a listed name of two words.
    const two = screenNameFuzzy(listed, 'Hadi Dehghan Chenari', { threshold: 0.6 }).matches[0]!
    expect(two.entry_id).toBe('d2')
    expect(two.score_breakdown.unmatched_query_parts).toEqual(['chenari'])
    const match = screenNameFuzzy(listed, 'Majid Dastjani Farahani').matches[0]!
    expect(match.score_breakdown.unmatched_query_parts).toEqual(['dastjani'])
    expect(match.score_breakdown.unmatched_listed_parts).toEqual([])
  })

  it('leaves out the nasab of a name written in Arabic script, when the query keeps the given name first and the order', () => {
    // Real list names (OFAC SDN); the Latin names are the ones the list gives for the same persons.
    const nasab = buildSanctionsIndexFromEntries([
      entry('n1', 'ال‫سيد‬, ساره جمال محمد'),
      entry('n2', 'دودين, موسى محمد سالم'),
    ])
    const match = (name: string) => screenNameFuzzy(nasab, name, { threshold: 0.3 }).matches[0]
    const sarah = match('Sarah Gamal')!
    expect(sarah.entry_id).toBe('n1')
    expect(sarah.score_breakdown.unmatched_listed_parts).toEqual(['mhmd', 'lsyd'])
    // 0.95 x 2 / (2 + 0.1 x the weight of the two words left out).
    expect(sarah.match_score).toBe(0.904)
    expect(match('Mussa Dodin')!.match_score).toBeGreaterThanOrEqual(0.78)
    // The same words in another order (the father's name first): the words left out cost 0.25.
    expect(match('Gamal Sarah')!.match_score).toBe(0.842)
  })

  it('lets a query with a word more leave out the nasab, not the family name', () => {
    // Real list name (OFAC SDN) and the Latin name the list gives for the same person.
    const khadur = buildSanctionsIndexFromEntries([
      entry('f1', 'خضور, توفیق محمد'),
      entry('f2', 'دودين, موسى محمد سالم'),
    ])
    const match = (name: string) => screenNameFuzzy(khadur, name, { threshold: 0.3 }).matches[0]!
    // محمد lies between the matched given and family names, and so does the query's extra word
    // Ahmad: each is the nasab of its own name and costs 0.1.
    const found = match('Tawfiq Ahmad Khadur')
    expect(found.score_breakdown.unmatched_listed_parts).toEqual(['mhmd'])
    expect(found.match_score).toBe(0.869)
    // The family name left out: the listed name is not wholly matched, the extra word costs in full.
    expect(match('Tawfiq Ahmad Mohammad').match_score).toBe(0.6)
  })

  it('lets extra words cost less when the listed words pair closely and in their order', () => {
    // Real list name (OFAC SDN) and a Latin name the list gives for the same person.
    const kayali = buildSanctionsIndexFromEntries([
      entry('k1', 'كيالي, طاهر'),
      entry('k2', 'دودين, موسى محمد سالم'),
    ])
    const score = (name: string) => screenNameFuzzy(kayali, name, { threshold: 0.3 }).matches[0]!.match_score
    // 0.95 x 2 / (2 + 0.2 x 2): two extra words after the listed name at 0.2 each.
    expect(score('Taher Kayali Abdel Karim')).toBe(0.792)
    // Out of order, the extra words cost 0.35 each: 0.95 x 2 / (2 + 0.35 x 2).
    expect(score('Kayali Abdel Karim Taher')).toBe(0.704)
  })

  it("lets the query's own nasab, between its matched words, cost what the listed nasab costs", () => {
    // Real list names (OFAC SDN) and Latin names the list gives for the same persons: the
    // father's names stand between the given name and the family name.
    const nasab = buildSanctionsIndexFromEntries([
      entry('n1', 'كيالي, طاهر'),
      entry('n2', 'حمشو, عمرو'),
      entry('n3', 'الدوله, محمد'),
    ])
    const score = (name: string) => screenNameFuzzy(nasab, name, { threshold: 0.3 }).matches[0]!.match_score
    // 0.95 x 2 / (2 + 0.1 x 2).
    expect(score('Taher Abdel Karim Kayali')).toBe(0.864)
    // A one-consonant pair (Amre / عمرو, 0.85) is close enough for it.
    expect(screenNameFuzzy(nasab, 'Amre Mohamad Hamcho').matches.map((m) => m.entry_id)).toEqual(['n2'])
    expect(
      screenNameFuzzy(nasab, 'Mohammed Yahya Ahmed Saleh Aldawla').matches.map((m) => m.entry_id),
    ).toEqual(['n3'])
    // Another given name in front is another person, whatever stands between.
    expect(screenNameFuzzy(nasab, 'Ahmad Taher Abdel Karim Kayali').matches).toEqual([])
  })

  it('reads an Arabic-script word that folds to a Latin connecting word as a name', () => {
    // على (Ali, with alef maksura) folds to "la"; it is the listed given name (OFAC SDN).
    expect(analyseName('ضعون, على محمد', 'person').parts.map((part) => part.role)).toEqual([
      'name',
      'name',
      'name',
    ])
    expect(analyseName('Maria de la Cruz').parts.map((part) => part.role)).toEqual([
      'name',
      'stopword',
      'stopword',
      'name',
    ])
  })

  it('does not do so for organisations, nor for a patronymic the list does not give', () => {
    // Another word makes another organisation.
    expect(found('FONDOVYI ANGSTREM-T')).toEqual([])
    // The patronymic tells a father from his son of the same given name and surname.
    expect(found('Sergey Aleksandrovich USHKO')).toEqual([])
    expect(found('Sergey USHKO')).toEqual(['d6'])
    // Another given name in front of a listed name is another person of that family.
    expect(found('Yurii ABDUL RAHMAN')).toEqual([])
    expect(found('Abdul Rahman')).toEqual(['d9'])
  })

  it('pairs a Latin word with one Arabic word rather than two Latin words with it on a tie', () => {
    // "Ali Mossalem" read as one word is المسلم too; Ali is علي.
    expect(found('Ali Mossalem')).toEqual(['d3'])
  })

  it('reads "Mussa" as a name, not as the Arabic legal-form word mu\'assasa', () => {
    expect(analyseName('Mussa Dodin').parts.map((part) => part.role)).toEqual(['name', 'name'])
    expect(analyseName('مؤسسة البناء').parts.map((part) => part.role)).toEqual(['legal_form', 'name'])
    const match = screenNameFuzzy(listed, 'Mussa Dodin', { threshold: 0.6 }).matches[0]!
    expect(match.entry_id).toBe('d4')
    // موسى is m-w-s-a, written in full by "Mussa": both words pair at 0.95, the given name first.
    expect(match.score_breakdown.parts.map((part) => [part.query, part.similarity])).toEqual([
      ['mussa', 0.95],
      ['dodin', 0.95],
    ])
  })

  it('keeps equal consonants a vowel separates, and reads v as ف', () => {
    expect(consonantSkeleton('adnan')).toBe('dnn')
    expect(abjadSkeleton('عدنان')).toBe('dnn')
    expect(consonantSkeleton('muhammad')).toBe('mhmd')
    expect(found('Adnan Ayad')).toEqual(['d8'])
    expect(consonantSkeletons('david')).toContain('dfd')
    expect(found('Yafi DAVID')).toEqual(['d5'])
  })
})

describe('screenNameFuzzy', () => {
  it('finds a typo, another transliteration and a name variant, and says how', () => {
    expect(first('Vladimir Putim')).toMatchObject({ entry_id: '1', match_type: 'name_fuzzy' })
    // Two swapped letters are one typo (Damerau-Levenshtein), not a spelling that sounds alike.
    expect(first('Vladimir Ptuin')).toMatchObject({ entry_id: '1', match_type: 'name_fuzzy' })
    expect(first('Vladimir Ptuin')!.score_breakdown.parts).toContainEqual(
      expect.objectContaining({ query: 'ptuin', listed: 'putin', method: 'edit_distance' }),
    )
    // A short word missing one letter ("Vladimr"), and a name part whose first letters carry the typo.
    expect(first('Vldimir Putin')).toMatchObject({ entry_id: '1', match_type: 'name_fuzzy' })
    expect(first('Vladimir Vladimirovich Putin')).toMatchObject({ entry_id: '1', match_type: 'name_tokens' })
    expect(first('Mohammed bin Salman')).toMatchObject({ entry_id: '2', match_type: 'name_phonetic' })
    const match = first('Mohammed bin Salman')!
    expect(match.score_breakdown.parts).toContainEqual({
      query: 'mohammed',
      listed: 'muhammad',
      similarity: 0.95,
      method: 'variant',
    })
  })

  it('finds a Latin spelling of a name the list gives only in Arabic script', () => {
    const match = first('Muhammad Hamdi Sadiq')!
    expect(match).toMatchObject({ entry_id: '7', match_type: 'name_transliterated' })
    expect(match.score_breakdown.parts.every((part) => part.method === 'transliteration')).toBe(true)
  })

  it('respects patronymic particles: the son is not the father', () => {
    expect(ids('Salman bin Muhammad')).not.toContain('2')
    // The exact mode's word-order rule would call it the same name.
    expect(screenName(index, 'Salman bin Muhammad').matches.map((m) => m.match_type)).toEqual(['name_tokens'])
  })

  it('treats legal forms as such and joins or splits words', () => {
    expect(first('Romashka LLC')).toMatchObject({ entry_id: '4', match_score: 1 })
    expect(first('Zemlyanika Trading Ltd')).toMatchObject({ entry_id: '6' })
    expect(first('AlQaida')).toMatchObject({ entry_id: '5' })
    expect(first('AlQaida')!.score_breakdown.parts[0]).toMatchObject({ method: 'split', listed: 'al qaida' })
  })

  it('keeps different names apart', () => {
    expect(ids('Vladimir Lukashenko')).toEqual([])
    expect(ids('John Smith')).toEqual([])
    expect(ids('Zemlyanika Holding')).toEqual([])
  })

  it('always returns what the exact mode returns, with a breakdown', () => {
    const match = first('Hong Gildong', { threshold: 0.99 })!
    expect(match).toMatchObject({ entry_id: '8', match_type: 'name_exact' })
    expect(match.score_breakdown.alias_factor).toBe(0.9)
  })

  it('moves the score with evidence and shows each adjustment', () => {
    const plain = first('Vladimir Ptuin')!.match_score
    const born = first('Vladimir Ptuin', { birth_date: '1952' })!
    expect(born.match_score).toBeCloseTo(plain + 0.05, 3)
    expect(born.score_breakdown.evidence).toEqual([
      expect.objectContaining({ field: 'birth_date', outcome: 'match', effect: 0.05 }),
    ])
    expect(ids('Vladimir Ptuin', { birth_date: '1980-01-01' })).toEqual([])
    expect(first('Vladimir Ptuin', { id_number: '100 000 001' })!.match_score).toBe(1)
    expect(ids('Vladimir Ptuin', { entity_type: 'organization' })).toEqual([])
  })
})

describe('screenNameFuzzy: word memos', () => {
  // What a screen remembers of its words (their comparisons, joined and split forms, skeletons)
  // must give the answer a screen that compares every word afresh gives.
  const queries: Array<[string, Record<string, unknown>]> = [
    ['Vladimir Putim', {}],
    ['Vladimir Ptuin', { birth_date: '1952' }],
    ['Путин Владимир', {}],
    ['Mohammed bin Salman', {}],
    ['Salman bin Muhammad', {}],
    ['Muhammad Hamdi Sadiq', { threshold: 0.5 }],
    ['محمد حمدي', {}],
    ['Bashar al Assad', { entity_type: 'person' }],
    ['بشار الأسد', {}],
    // The same letters as the Arabic-script words fold to, typed in Latin: compared another way.
    ['Bshr Alasd', { threshold: 0.5 }],
    ['Mhmd Hmdy', { threshold: 0.5 }],
    ['AlQaida', {}],
    ['Al Qaida', {}],
    ['Romashka LLC', {}],
    ['Zemlyanika Trading Ltd', { country: 'RU' }],
    ['Hong Gildong', { threshold: 0.99 }],
    ['John Smith', {}],
  ]
  const cold = (name: string, options: Record<string, unknown>) => {
    forgetFuzzyWordMemos(index)
    return screenNameFuzzy(index, name, options)
  }

  it('answers a repeated screen as it answered the first, and as a screen with nothing remembered', () => {
    const fresh = queries.map(([name, options]) => cold(name, options))
    forgetFuzzyWordMemos(index)
    // Every query twice in a row over one memo: the second time each word is remembered.
    for (let round = 0; round < 2; round++) {
      queries.forEach(([name, options], i) => {
        expect(screenNameFuzzy(index, name, options)).toEqual(fresh[i])
      })
    }
  })
})

describe('evidenceAdjustments', () => {
  const putin = entries[0]!
  it('compares what the list publishes and nothing else', () => {
    expect(evidenceAdjustments(putin, { birth_date: '1952-10-07' })[0]).toMatchObject({ effect: 0.08 })
    expect(evidenceAdjustments(putin, { birth_date: '1953' })).toEqual([])
    expect(evidenceAdjustments(putin, { nationality: 'RU' })[0]).toMatchObject({ outcome: 'match' })
    expect(evidenceAdjustments(putin, { nationality: 'FR' })[0]).toMatchObject({ outcome: 'conflict' })
    expect(evidenceAdjustments(entries[1]!, { birth_date: '1980', nationality: 'SA' })).toEqual([])
    expect(evidenceAdjustments(putin, { entity_type: 'vessel' })[0]).toMatchObject({ effect: -0.2 })
    expect(evidenceAdjustments(putin, { id_number: 'X1' })).toEqual([])
  })

  it('reads a birth-year range', () => {
    const ranged = entry('9', 'Someone', { birth_dates: ['1958/1960'] })
    expect(evidenceAdjustments(ranged, { birth_date: '1959' })[0]).toMatchObject({ outcome: 'match' })
    expect(evidenceAdjustments(ranged, { birth_date: '1970' })[0]).toMatchObject({ outcome: 'conflict' })
  })
})
