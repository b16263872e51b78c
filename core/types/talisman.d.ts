/** talisman ships no type declarations; these cover the two metrics the matcher's own ports are tested against. */
declare module 'talisman/metrics/jaro-winkler.js' {
  /** Jaro-Winkler similarity (0-1) with the standard prefix scale 0.1 and boost threshold 0.7. */
  const jaroWinkler: (a: string, b: string) => number
  export default jaroWinkler
}

declare module 'talisman/metrics/damerau-levenshtein.js' {
  /** Damerau-Levenshtein distance, optimal string alignment (adjacent transpositions count once). */
  export default function damerauLevenshtein(a: string, b: string): number
}
