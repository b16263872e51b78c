import { SaxesParser } from 'saxes'
import { ListParseError } from './list-parse-error.ts'
import type { ListFormat, ListKey } from './types.ts'

/**
 * Streaming XML plumbing shared by the list parsers. Input is fed to saxes in 1 MiB text
 * chunks so no parser ever holds a DOM (or one JS string) of a whole 120 MB file.
 */

/** A list file as text, bytes, or a stream of either (e.g. a bz2 decompression stream). */
export type ListInput = string | Uint8Array | AsyncIterable<Uint8Array | string>

const CHUNK = 1 << 20

/** Decodes any ListInput into UTF-8 text chunks; invalid UTF-8 is an error, never replaced. */
export async function* textChunks(input: ListInput): AsyncGenerator<string> {
  if (typeof input === 'string') {
    for (let i = 0; i < input.length; i += CHUNK) yield input.slice(i, i + CHUNK)
    return
  }
  const decoder = new TextDecoder('utf-8', { fatal: true })
  if (input instanceof Uint8Array) {
    for (let i = 0; i < input.length; i += CHUNK) {
      yield decoder.decode(input.subarray(i, i + CHUNK), { stream: true })
    }
  } else {
    for await (const chunk of input) {
      if (typeof chunk === 'string') yield chunk
      else yield decoder.decode(chunk, { stream: true })
    }
  }
  const tail = decoder.decode()
  if (tail) yield tail
}

/**
 * Copies a string out of the parser's input chunk. V8 keeps substrings of 13+ characters as
 * slices of their parent string, so one retained name would otherwise keep its whole 1 MiB
 * chunk alive; entries built from a 120 MB file would pin most of it.
 */
export function detach(value: string): string {
  // A lone surrogate (possible only in string input: bytes are decoded strictly) would come back
  // as U+FFFD from the UTF-8 round trip: such a value is kept as it is.
  return value.length < 13 || !value.isWellFormed() ? value : Buffer.from(value, 'utf8').toString('utf8')
}

/** The attributes of an element with every value detached from the input chunk. */
function detachAll(attributes: Record<string, string>): Record<string, string> {
  // Without a prototype, as saxes gives them: an attribute named `__proto__` stays an attribute.
  const copy: Record<string, string> = Object.create(null)
  for (const name in attributes) copy[name] = detach(attributes[name]!)
  return copy
}

/** Strips a namespace prefix ("ns2:export" -> "export"). */
export function localName(qname: string): string {
  const colon = qname.indexOf(':')
  return colon < 0 ? qname : qname.slice(colon + 1)
}

/**
 * Writes the whole input to a saxes parser and closes it. Any XML error (including an unclosed
 * root element, which is what a truncated download looks like) becomes a ListParseError.
 */
export async function feedXml(
  parser: SaxesParser<{ xmlns: false; position: false }>,
  input: ListInput,
  list: ListKey | 'unknown',
  format: ListFormat,
): Promise<void> {
  try {
    for await (const chunk of textChunks(input)) parser.write(chunk)
    parser.close()
  } catch (error) {
    if (error instanceof ListParseError) throw error
    const message = error instanceof Error ? error.message : String(error)
    const reason = error instanceof TypeError && /encod|decode/i.test(message) ? 'not valid UTF-8' : message
    throw new ListParseError(list, format, `malformed or truncated XML: ${reason}`, { cause: error })
  }
}

/** saxes without namespace processing or position tracking: both cost time and neither is needed. */
export function createXmlParser(): SaxesParser<{ xmlns: false; position: false }> {
  return new SaxesParser({ xmlns: false, position: false })
}

/** A small element tree for one record of a list (UN INDIVIDUAL, EU sanctionEntity, ...). */
export interface XmlNode {
  name: string
  attributes: Record<string, string>
  children: XmlNode[]
  text: string
}

/** Children of a node with the given local name. */
export function childrenNamed(node: XmlNode, name: string): XmlNode[] {
  return node.children.filter((child) => child.name === name)
}

/** Trimmed text of the first child with the given name ("" when absent). */
export function childText(node: XmlNode, name: string): string {
  for (const child of node.children) if (child.name === name) return child.text.trim()
  return ''
}

export interface XmlRecords {
  rootName: string
  rootAttributes: Record<string, string>
  records: XmlNode[]
  /** Local names of every element seen outside records, for structure checks. */
  elementNames: Set<string>
}

/**
 * Streams an XML document and returns each record element (by local name, outermost only) as a
 * small tree. Used for the small UN and EU files, where a tree per record keeps the mapping
 * code plain while the document as a whole is still streamed.
 */
export async function collectXmlRecords(
  input: ListInput,
  recordNames: ReadonlySet<string>,
  list: ListKey | 'unknown',
  format: ListFormat,
): Promise<XmlRecords> {
  const parser = createXmlParser()
  const records: XmlNode[] = []
  const elementNames = new Set<string>()
  let rootName = ''
  let rootAttributes: Record<string, string> = {}
  const stack: XmlNode[] = []
  parser.on('opentag', (tag) => {
    const name = localName(tag.name)
    if (rootName === '') {
      rootName = name
      rootAttributes = tag.attributes as Record<string, string>
    }
    const parent = stack[stack.length - 1]
    if (parent === undefined) {
      elementNames.add(name)
      if (!recordNames.has(name)) return
    }
    const node: XmlNode = {
      name,
      attributes: tag.attributes as Record<string, string>,
      children: [],
      text: '',
    }
    if (parent) parent.children.push(node)
    stack.push(node)
  })
  parser.on('text', (text) => {
    const top = stack[stack.length - 1]
    if (top) top.text += text
  })
  parser.on('cdata', (text) => {
    const top = stack[stack.length - 1]
    if (top) top.text += text
  })
  parser.on('closetag', () => {
    const node = stack.pop()
    if (!node) return
    // A record's values are held for as long as the list is: copied out of the input chunk
    // (detach), or one retained name keeps its whole 1 MiB chunk alive (7 MB of the UN and EU
    // files stayed in the heap after a first load, bench:memory with MEMORY_HEAP_SNAPSHOT).
    node.text = detach(node.text)
    node.attributes = detachAll(node.attributes)
    if (stack.length === 0) records.push(node)
  })
  await feedXml(parser, input, list, format)
  return { rootName, rootAttributes: detachAll(rootAttributes), records, elementNames }
}
