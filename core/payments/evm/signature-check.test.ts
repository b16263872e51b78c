import { type Hex, keccak256, toHex, verifyHash } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it, vi } from 'vitest'
import { checkSignature } from './signature-check.ts'

/** The order of secp256k1's group. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const hex32 = (value: bigint) => value.toString(16).padStart(64, '0')

/** Builds r ‖ s ‖ v from parts, so a test can change one of them. */
const rsv = (r: bigint, s: bigint, v: number) =>
  `0x${hex32(r)}${hex32(s)}${v.toString(16).padStart(2, '0')}` as Hex

function parts(signature: Hex) {
  return {
    r: BigInt(`0x${signature.slice(2, 66)}`),
    s: BigInt(`0x${signature.slice(66, 130)}`),
    v: Number.parseInt(signature.slice(130), 16),
  }
}

/** What viem's own check (recover the key, compare addresses) answers, exceptions as false. */
async function viemAnswer(address: Hex, hash: Hex, signature: Hex): Promise<boolean> {
  try {
    return await verifyHash({ address, hash, signature })
  } catch {
    return false
  }
}

/** A signature and the variants of it that a forger or a sloppy client would send. */
function variants(signature: Hex): Hex[] {
  const { r, s, v } = parts(signature)
  const other = v === 27 ? 28 : 27
  return [
    signature,
    rsv(r, N - s, other), // the same signature with high s (recovers the same key)
    rsv(r, s, other), // wrong recovery bit
    rsv(r, N - s, v), // high s, recovery bit not flipped
    rsv(r, s, v - 27), // v as y parity (0/1)
    rsv(r + 1n, s, v),
    rsv(r, s + 1n, v),
    rsv(r, s, 2),
    rsv(r, s, 29),
    rsv(0n, s, v),
    rsv(r, 0n, v),
    rsv(N, s, v),
    rsv(r, N, v),
    `0x${signature.slice(2, 130)}` as Hex, // 64 bytes
    `${signature}00` as Hex,
  ]
}

describe('checkSignature', () => {
  it('answers exactly what viem answers (recover the key, compare addresses), over signatures and their variants', async () => {
    const signer = privateKeyToAccount(generatePrivateKey())
    const stranger = privateKeyToAccount(generatePrivateKey())
    let compared = 0
    let accepted = 0
    for (let round = 0; round < 12; round++) {
      const hash = keccak256(toHex(`authorization ${round} ${Math.random()}`))
      const own = await signer.sign({ hash })
      const foreign = await stranger.sign({ hash })
      const otherHash = keccak256(toHex(`other ${round}`))
      for (const signature of [...variants(own), ...variants(foreign)]) {
        for (const [address, digest] of [
          [signer.address, hash],
          [signer.address, otherHash],
          [stranger.address, hash],
        ] as const) {
          const expected = await viemAnswer(address, digest, signature)
          expect(await checkSignature({ address, hash: digest, signature }), `${address} ${signature}`).toBe(
            expected,
          )
          compared++
          if (expected) accepted++
        }
      }
    }
    expect(compared).toBe(12 * 30 * 3)
    // Each signer's own signature, its high-s twin, the 0/1 form of v and the 64-byte compact form pass.
    expect(accepted).toBeGreaterThanOrEqual(12 * 2 * 3)
  })

  it('answers as viem does for a digest that is not 32 bytes, and refuses a signature that is not hex', async () => {
    const signer = privateKeyToAccount(generatePrivateKey())
    const hash = keccak256(toHex('authorization'))
    const signature = await signer.sign({ hash })
    expect(await checkSignature({ address: signer.address, hash, signature })).toBe(true)
    const longer = `${hash}00` as Hex
    expect(await checkSignature({ address: signer.address, hash: longer, signature })).toBe(
      await viemAnswer(signer.address, longer, signature),
    )
    expect(
      await checkSignature({ address: signer.address, hash, signature: `0x${'zz'.repeat(65)}` as Hex }),
    ).toBe(false)
  })
})

describe('checkSignature without libsecp256k1', () => {
  it('answers through viem, the same, when the WebAssembly module cannot be loaded', async () => {
    vi.resetModules()
    vi.doMock('tiny-secp256k1', () => {
      throw new Error('WebAssembly is not available')
    })
    try {
      const { checkSignature: check } = await import('./signature-check.ts')
      const signer = privateKeyToAccount(generatePrivateKey())
      const hash = keccak256(toHex('authorization'))
      const signature = await signer.sign({ hash })
      expect(await check({ address: signer.address, hash, signature })).toBe(true)
      const stranger = privateKeyToAccount(generatePrivateKey())
      expect(await check({ address: stranger.address, hash, signature })).toBe(false)
    } finally {
      vi.doUnmock('tiny-secp256k1')
      vi.resetModules()
    }
  })
})
