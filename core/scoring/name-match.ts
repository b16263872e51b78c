/**
 * Legal-form words (NL, BE, and the common international ones) after punctuation is removed.
 * They say what kind of company it is, not which one, so name comparison ignores them.
 */
const LEGAL_FORM_WORDS = new Set([
  'bv',
  'nv',
  'vof',
  'cv',
  'bvba',
  'cvba',
  'srl',
  'sprl',
  'sa',
  'scrl',
  'sc',
  'vzw',
  'asbl',
  'ivzw',
  'commv',
  'stichting',
  'vereniging',
  'cooperatie',
  'ua',
  'gmbh',
  'ag',
  'ltd',
  'limited',
  'inc',
  'llc',
  'plc',
  'sarl',
  'sas',
  'spa',
])

/**
 * A company name reduced to what identifies it: Unicode-folded, lower case, no diacritics, dots
 * and apostrophes dropped inside words (`B.V.` -> `bv`), other punctuation as spaces, single
 * spaces. Legal forms are kept, so `Acme BV` and `Acme NV` stay different names.
 */
export function normaliseCompanyName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/&/g, ' en ')
    .replace(/[.'’`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/\s+/g, ' ')
}

/** The words of a normalised name without legal forms. */
export function coreNameTokens(name: string): string[] {
  return normaliseCompanyName(name)
    .split(' ')
    .filter((token) => token !== '' && !LEGAL_FORM_WORDS.has(token))
}

export type NameVerdict = 'match' | 'partial' | 'mismatch'

export interface NameComparison {
  verdict: NameVerdict
  /** The candidate that compared best; null when there were none. */
  best: string | null
}

function compareOne(given: string[], candidate: string[]): NameVerdict {
  if (given.length === 0 || candidate.length === 0) return 'mismatch'
  const a = new Set(given)
  const b = new Set(candidate)
  if (a.size === b.size && [...a].every((token) => b.has(token))) return 'match'
  const shared = [...a].filter((token) => b.has(token)).length
  const union = new Set([...a, ...b]).size
  const joinedA = given.join(' ')
  const joinedB = candidate.join(' ')
  if (shared / union >= 0.5 || joinedA.includes(joinedB) || joinedB.includes(joinedA)) return 'partial'
  return 'mismatch'
}

/**
 * Compares the name a customer gave with the names a register holds (statutory, trade and
 * abbreviated names): `match` when the words agree apart from legal form, order and
 * punctuation; `partial` when at least half the words are shared or one name contains the
 * other; `mismatch` otherwise. METHODOLOGY.md "Name comparison".
 */
export function compareCompanyNames(given: string, candidates: readonly (string | null)[]): NameComparison {
  const givenTokens = coreNameTokens(given)
  let best: NameComparison = { verdict: 'mismatch', best: null }
  const rank: Record<NameVerdict, number> = { match: 2, partial: 1, mismatch: 0 }
  for (const candidate of candidates) {
    if (!candidate) continue
    const verdict = compareOne(givenTokens, coreNameTokens(candidate))
    if (best.best === null || rank[verdict] > rank[best.verdict]) best = { verdict, best: candidate }
    if (verdict === 'match') break
  }
  return best
}
