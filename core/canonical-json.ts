/**
 * JCS (RFC 8785): the canonical JSON text of a value, byte for byte what the `canonicalize`
 * package (4.x) produces, errors included: keys sorted by UTF-16 code units, numbers as
 * ECMAScript prints them, `toJSON` honoured, `undefined` and symbol members left out (in arrays:
 * null), NaN, Infinity, lone surrogates and circular references refused.
 *
 * Why not the package itself: it builds the text piece by piece in JavaScript and checks every
 * string for lone surrogates one UTF-16 unit at a time; every paid answer is canonicalized for its
 * receipt and every audit row's fields for its chain. For JSON data, JCS is JSON.stringify of the
 * value with its keys sorted (the same number and string forms), so this copies the value with
 * sorted keys, checking it as the package does (`isWellFormed` natively), and lets the engine
 * print it: about twice as fast. A value JSON.stringify would print otherwise than the package
 * (functions, holes, keys that are array indices, which objects enumerate first, `__proto__`) is
 * encoded the package's way. The tests compare the two on generated values.
 */
export function canonicalJson(value: unknown): string | undefined {
  const copy = sortedCopy(value, new Set())
  return copy === UNLIKE_JSON ? encode(value, new Set()) : JSON.stringify(copy)
}

/** Returned by sortedCopy for a value whose JSON.stringify text is not the package's. */
const UNLIKE_JSON: unique symbol = Symbol('unlike JSON')

/**
 * The value with every object's keys in sorted order (toJSON applied), throwing what the package
 * throws, in the order it would; UNLIKE_JSON for anything JSON.stringify would print differently.
 */
function sortedCopy(value: unknown, seen: Set<object>): unknown {
  switch (typeof value) {
    case 'string':
      if (!value.isWellFormed()) throw new Error('Lone surrogate is not allowed')
      return value
    case 'number':
      if (Number.isNaN(value)) throw new Error('NaN is not allowed')
      if (!Number.isFinite(value)) throw new Error('Infinity is not allowed')
      return value
    case 'boolean':
      return value
    case 'object':
      break
    default:
      return UNLIKE_JSON
  }
  if (value === null) return null
  if (seen.has(value)) throw new Error('Circular reference detected')
  seen.add(value)
  let copy: unknown
  const withJson = value as { toJSON?: unknown }
  if (typeof withJson.toJSON === 'function') {
    copy = sortedCopy((withJson.toJSON as () => unknown).call(value), seen)
  } else if (Array.isArray(value)) {
    const items: unknown[] = new Array(value.length)
    for (let index = 0; index < value.length; index++) {
      if (!(index in value)) return UNLIKE_JSON
      const item: unknown = value[index]
      const itemCopy = item === undefined || typeof item === 'symbol' ? null : sortedCopy(item, seen)
      if (itemCopy === UNLIKE_JSON) return UNLIKE_JSON
      items[index] = itemCopy
    }
    copy = items
  } else {
    const record = value as Record<string, unknown>
    const sorted: Record<string, unknown> = {}
    for (const key of Object.keys(record).sort()) {
      const item = record[key]
      if (item === undefined || typeof item === 'symbol') continue
      if (!key.isWellFormed()) throw new Error('Lone surrogate is not allowed')
      // An object lists keys that are array indices first, in numeric order, not sorted order.
      const first = key.charCodeAt(0)
      // `__proto__` would set the copy's prototype instead of a key.
      if ((first >= 48 && first <= 57) || key === '__proto__') return UNLIKE_JSON
      const itemCopy = sortedCopy(item, seen)
      if (itemCopy === UNLIKE_JSON) return UNLIKE_JSON
      sorted[key] = itemCopy
    }
    copy = sorted
  }
  seen.delete(value)
  return copy
}

function encode(value: unknown, seen: Set<object>): string | undefined {
  switch (typeof value) {
    case 'string':
      if (!value.isWellFormed()) throw new Error('Lone surrogate is not allowed')
      return JSON.stringify(value)
    case 'number':
      if (Number.isNaN(value)) throw new Error('NaN is not allowed')
      if (!Number.isFinite(value)) throw new Error('Infinity is not allowed')
      return JSON.stringify(value)
    case 'object':
      break
    default:
      return JSON.stringify(value)
  }
  if (value === null) return 'null'
  if (seen.has(value)) throw new Error('Circular reference detected')
  const withJson = value as { toJSON?: unknown }
  if (typeof withJson.toJSON === 'function') {
    seen.add(value)
    const result = encode((withJson.toJSON as () => unknown).call(value), seen)
    seen.delete(value)
    return result
  }
  seen.add(value)
  let result: string
  if (Array.isArray(value)) {
    result = '['
    for (let index = 0; index < value.length; index++) {
      if (index > 0) result += ','
      // As the package's map-then-join prints them: a hole, and undefined (a function's
      // encoding), as nothing.
      if (!(index in value)) continue
      const item: unknown = value[index]
      result += encode(item === undefined || typeof item === 'symbol' ? null : item, seen) ?? ''
    }
    result += ']'
  } else {
    const record = value as Record<string, unknown>
    result = '{'
    let first = true
    for (const key of Object.keys(record).sort()) {
      const item = record[key]
      if (item === undefined || typeof item === 'symbol') continue
      if (!key.isWellFormed()) throw new Error('Lone surrogate is not allowed')
      result += `${first ? '' : ','}${JSON.stringify(key)}:${encode(item, seen)}`
      first = false
    }
    result += '}'
  }
  seen.delete(value)
  return result
}
