/**
 * Unicode bidirectional formatting characters: the embeddings and overrides (U+202A-U+202E), the
 * isolates (U+2066-U+2069) and the invisible marks (LRM U+200E, RLM U+200F, ALM U+061C). Shown in a
 * page or a spreadsheet they reorder the text around them without being seen: a right-to-left
 * override turns `Acme exe.pdf` into something else, or makes a name read as another.
 */
export const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

const BIDI_CONTROLS = new RegExp(BIDI_CONTROL.source, 'g')

const NAMES: Readonly<Record<number, string>> = {
  1564: 'ARABIC LETTER MARK',
  8206: 'LEFT-TO-RIGHT MARK',
  8207: 'RIGHT-TO-LEFT MARK',
  8234: 'LEFT-TO-RIGHT EMBEDDING',
  8235: 'RIGHT-TO-LEFT EMBEDDING',
  8236: 'POP DIRECTIONAL FORMATTING',
  8237: 'LEFT-TO-RIGHT OVERRIDE',
  8238: 'RIGHT-TO-LEFT OVERRIDE',
  8294: 'LEFT-TO-RIGHT ISOLATE',
  8295: 'RIGHT-TO-LEFT ISOLATE',
  8296: 'FIRST STRONG ISOLATE',
  8297: 'POP DIRECTIONAL ISOLATE',
}

const codeOf = (char: string) => char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')

/** The input rule's message for the first bidirectional control in `text`, or undefined. */
export function bidiControlProblem(text: string): string | undefined {
  const found = BIDI_CONTROL.exec(text)
  if (!found) return undefined
  const char = found[0]
  return `contains a bidirectional control character (U+${codeOf(char)} ${NAMES[char.codePointAt(0)!]}) at position ${found.index}: it would reorder the text wherever it is shown`
}

/**
 * Text to render with every bidirectional control made visible and inert (`[U+202E]`), for data
 * that did not pass the input rule: upstream names, rows stored before it, a CSV file's own cells.
 */
export function neutraliseBidi(text: string): string {
  return text.replace(BIDI_CONTROLS, (char) => `[U+${codeOf(char)}]`)
}
