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

/** Converts micro-USDC to a JSON number of USD for display fields only (never for arithmetic). */
export function microsToUsdNumber(micros: Micros): number {
  return Number(formatUsd(micros))
}
