/**
 * Money is integer micro-USDC (6 decimals) everywhere, as bigint. Never floats.
 */
export type Micros = bigint

export const MICROS_PER_USD = 1_000_000n

const DECIMAL = /^(\d+)(?:\.(\d{1,6}))?$/

/** Parses a decimal USD string such as "0.005" into exact micro-USDC. */
export function usd(amount: string): Micros {
  const match = DECIMAL.exec(amount)
  if (!match) throw new RangeError(`not a USD amount with at most 6 decimals: ${amount}`)
  const whole = BigInt(match[1] ?? '0')
  const fraction = BigInt((match[2] ?? '').padEnd(6, '0'))
  return whole * MICROS_PER_USD + fraction
}

/** Formats micro-USDC as a decimal string with 6 decimals ("0.110000"). */
export function formatUsd(micros: Micros): string {
  const negative = micros < 0n
  const abs = negative ? -micros : micros
  const whole = abs / MICROS_PER_USD
  const fraction = (abs % MICROS_PER_USD).toString().padStart(6, '0')
  return `${negative ? '-' : ''}${whole}.${fraction}`
}

/** A price as people read it: at least 2 decimals, no trailing zeros beyond them (`0.11`, `0.005`). */
export function formatUsdShort(micros: Micros): string {
  return formatUsd(micros).replace(/(\.\d\d\d*?)0+$/, '$1')
}

/** Converts micro-USDC to a JSON number of USD for display fields only (never for arithmetic). */
export function microsToUsdNumber(micros: Micros): number {
  return Number(formatUsd(micros))
}

/**
 * The most a key's prepaid balance may hold: one billion USD, 10^15 micro-USDC, below 2^53 so
 * every balance is exact as a JSON number. A credit above it is refused.
 */
export const MAX_BALANCE_MICROS: Micros = 1_000_000_000n * MICROS_PER_USD

/** Largest whole-USD part an amount given as input may have (below one billion USD). */
export const MAX_INPUT_USD_WHOLE = 999_999_999n

const INPUT_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/
const INPUT_EXPONENT = /^(-?)(\d+)(?:\.(\d+))?e([+-]?\d+)$/

/** Outcome of reading an untrusted USD amount: a normalised decimal string, or why it was refused. */
export type UsdAmountResult = { ok: true; value: string } | { ok: false; message: string }

/**
 * Reads a USD amount sent as a JSON number or a decimal string, exactly (never through float
 * arithmetic). A number is read through its shortest decimal representation (`String(n)`, so
 * 0.1 is "0.1"); when JavaScript writes it in exponent notation (below 1e-6, from 1e21) the
 * digits are shifted exactly, so 1e-7 is refused for its decimals, 1e21 for its size. A string
 * must be a plain decimal ("25", "25.50"). Refused: more than 6 decimals, negative amounts,
 * NaN and Infinity, one billion USD or more. The value is normalised ("007.50" -> "7.5") and is
 * accepted by `usd()`. Messages complete the sentence "<field> ...".
 */
export function parseUsdAmount(input: number | string): UsdAmountResult {
  let sign: string
  let whole: string
  let fraction: string
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return { ok: false, message: `must be a finite number (got ${input})` }
    const text = String(input)
    const plain = INPUT_DECIMAL.exec(text)
    const exponent = plain ? undefined : INPUT_EXPONENT.exec(text)
    if (plain) {
      sign = plain[1] ?? ''
      whole = plain[2] ?? '0'
      fraction = plain[3] ?? ''
    } else if (exponent) {
      sign = exponent[1] ?? ''
      const digits = (exponent[2] ?? '') + (exponent[3] ?? '')
      const point = (exponent[2] ?? '').length + Number(exponent[4])
      const padded = point <= 0 ? '0'.repeat(1 - point) + digits : digits.padEnd(point, '0')
      const at = point <= 0 ? 1 : point
      whole = padded.slice(0, at)
      fraction = padded.slice(at)
    } else {
      return { ok: false, message: `must be a USD amount (got ${text})` }
    }
  } else {
    const plain = INPUT_DECIMAL.exec(input)
    if (!plain) {
      return { ok: false, message: `must be a decimal USD amount such as "25.00" (got ${quoted(input)})` }
    }
    sign = plain[1] ?? ''
    whole = plain[2] ?? '0'
    fraction = plain[3] ?? ''
  }
  const shown = typeof input === 'number' ? String(input) : quoted(input)
  const wholeDigits = whole.replace(/^0+(?=\d)/, '')
  const isZero = /^0*$/.test(wholeDigits + fraction)
  if (sign === '-' && !isZero) return { ok: false, message: `must not be negative (got ${shown})` }
  if (fraction.length > 6) {
    return { ok: false, message: `must be a USD amount with at most 6 decimals (got ${shown})` }
  }
  if (BigInt(wholeDigits) > MAX_INPUT_USD_WHOLE) {
    return { ok: false, message: `must be less than ${MAX_INPUT_USD_WHOLE + 1n} USD (got ${shown})` }
  }
  const significant = fraction.replace(/0+$/, '')
  return { ok: true, value: significant === '' ? wholeDigits : `${wholeDigits}.${significant}` }
}

function quoted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)
}
