import { createHash } from 'node:crypto'

/**
 * Deterministic pseudo-random numbers for sandbox mocks: the same input always gives the same
 * mock, so integrators can write stable tests against a sandbox key.
 */
export function mockSeed(...parts: (string | undefined)[]): (salt: string) => number {
  const base = parts.map((part) => part ?? '').join('\u0000')
  return (salt) => {
    const digest = createHash('sha256').update(`${base}\u0000${salt}`).digest()
    return digest.readUInt32BE(0) / 0x1_0000_0000
  }
}

/** Marks a sandbox body so it can never be mistaken for a real result. */
export const MOCK_MARKER = {
  mock: true,
  mock_note: 'Sandbox key: this is mock data, not a real check.',
} as const
