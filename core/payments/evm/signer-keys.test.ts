import { secp256k1 } from '@noble/curves/secp256k1'
import { type Hex, keccak256, toHex, verifyHash } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { createSignerKeys } from './signer-keys.ts'

const N = secp256k1.CURVE.n
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

describe('createSignerKeys', () => {
  it('answers exactly what key recovery answers, for known and unknown signers, over signatures and their variants', async () => {
    const keys = createSignerKeys()
    const signer = privateKeyToAccount(generatePrivateKey())
    const stranger = privateKeyToAccount(generatePrivateKey())
    let compared = 0
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
          expect(await keys.verify({ address, hash: digest, signature }), `${address} ${signature}`).toBe(
            await viemAnswer(address, digest, signature),
          )
          compared++
        }
      }
    }
    // Both signers' keys were learnt from their first valid signature, so most checks ran on the known key.
    expect(keys.size).toBe(2)
    expect(compared).toBe(12 * 30 * 3)
  })

  it('keeps a key only once a signature recovered to its address', async () => {
    const keys = createSignerKeys()
    const signer = privateKeyToAccount(generatePrivateKey())
    const stranger = privateKeyToAccount(generatePrivateKey())
    const hash = keccak256(toHex('authorization'))
    expect(
      await keys.verify({ address: signer.address, hash, signature: await stranger.sign({ hash }) }),
    ).toBe(false)
    expect(keys.size).toBe(0)
    expect(await keys.verify({ address: signer.address, hash, signature: await signer.sign({ hash }) })).toBe(
      true,
    )
    expect(keys.size).toBe(1)
    // A known signer's key does not make someone else's signature pass.
    const next = keccak256(toHex('next authorization'))
    expect(
      await keys.verify({
        address: signer.address,
        hash: next,
        signature: await stranger.sign({ hash: next }),
      }),
    ).toBe(false)
    expect(
      await keys.verify({
        address: signer.address,
        hash: next,
        signature: await signer.sign({ hash: next }),
      }),
    ).toBe(true)
  })

  it('holds at most maxSigners keys, dropping the least recently used', async () => {
    const keys = createSignerKeys({ maxSigners: 2 })
    const signers = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()))
    const hash = keccak256(toHex('authorization'))
    const check = async (index: number) => {
      const signer = signers[index]!
      expect(
        await keys.verify({ address: signer.address, hash, signature: await signer.sign({ hash }) }),
      ).toBe(true)
    }
    await check(0)
    await check(1)
    await check(0)
    await check(2)
    expect(keys.size).toBe(2)
    // All three still verify: a dropped key is recovered again.
    await check(1)
    await check(0)
    expect(keys.size).toBe(2)
  })

  it('with maxSigners 0 keeps nothing and still verifies', async () => {
    const keys = createSignerKeys({ maxSigners: 0 })
    const signer = privateKeyToAccount(generatePrivateKey())
    const hash = keccak256(toHex('authorization'))
    expect(await keys.verify({ address: signer.address, hash, signature: await signer.sign({ hash }) })).toBe(
      true,
    )
    expect(keys.size).toBe(0)
  })
})
