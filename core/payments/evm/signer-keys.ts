import { invert, mod } from '@noble/curves/abstract/modular'
import { secp256k1 } from '@noble/curves/secp256k1'
import { type Address, type Hex, isAddressEqual, recoverPublicKey } from 'viem'
import { publicKeyToAddress } from 'viem/accounts'

type Point = typeof secp256k1.ProjectivePoint.BASE

const G = secp256k1.ProjectivePoint.BASE
const N = secp256k1.CURVE.n
/** r ‖ s ‖ v, 65 bytes: the only form the fast path reads (anything else goes through recovery). */
const RSV = /^0x[0-9a-fA-F]{130}$/

/**
 * Window of the multiples kept per signer (noble's wNAF precomputation): 4 keeps about 45 KB per
 * key and costs about one recovery to build. Wider windows check faster but cost more per payer
 * (8: about 330 KB and 20 recoveries' time to build, which a stream of new payers would pay).
 */
const WINDOW = 4

/** Verifies that `signature` over a 32-byte `hash` was made by the key of `address`. */
export interface SignatureVerifier {
  verify(input: { address: Address; hash: Hex; signature: Hex }): Promise<boolean>
  /** How many signers' public keys are held. */
  readonly size: number
}

/**
 * ECDSA secp256k1 signature checks by address, as viem's `verifyHash` does them (recover the
 * public key, compare its address), with the public key of each signer that already signed
 * correctly kept for the next signature.
 *
 * Why: recovering a public key costs a square root and a multiplication of a point no table
 * exists for (R, new with each signature), the largest CPU cost of an x402 payment (node:crypto has no secp256k1 recovery and verifies
 * only digests it computes itself, so it cannot check an EIP-712 digest). A known key with its
 * multiples precomputed skips the square root and the multiplication of a fresh point: in the
 * x402 benchmark the signature's share of the CPU fell from about 3.2 to 1.9 ms per call (noble
 * multiplies in constant time with a table; its faster variable-time path with a table is not
 * used, it gave wrong products for a point other than G in noble 1.9.1). Every signature is still
 * checked in full: the cache holds public keys (public data, only ever the key an address was
 * recovered from), never a verdict.
 *
 * The check with a known key Q answers exactly what recovery answers: recovery (recovery bit
 * v ∈ {0, 1}) takes the point R with x = r and y of parity v and yields Q' = r⁻¹(sR − hG), and
 * accepts when Q' has the address. With Q known, R' = (h/s)G + (r/s)Q is R exactly when
 * R'.x = r and R'.y has parity v, and then Q' = Q; any other signature recovers another key, whose
 * address is another address.
 */
export function createSignerKeys(options: { maxSigners?: number } = {}): SignatureVerifier {
  const maxSigners = options.maxSigners ?? 256
  // Insertion order is recency order: a hit is moved to the end, the first entry is the oldest.
  const keys = new Map<string, Point>()

  const remember = (address: string, publicKey: Hex) => {
    if (maxSigners <= 0) return
    const point = secp256k1.ProjectivePoint.fromHex(publicKey.slice(2))
    secp256k1.utils.precompute(WINDOW, point)
    keys.set(address, point)
    if (keys.size > maxSigners) keys.delete(keys.keys().next().value as string)
  }

  return {
    get size() {
      return keys.size
    },
    async verify({ address, hash, signature }) {
      const id = address.toLowerCase()
      const known = keys.get(id)
      if (known && RSV.test(signature) && /^0x[0-9a-fA-F]{64}$/.test(hash)) {
        const v = Number.parseInt(signature.slice(130), 16)
        const parity = v === 0 || v === 27 ? 0n : v === 1 || v === 28 ? 1n : undefined
        const r = BigInt(`0x${signature.slice(2, 66)}`)
        const s = BigInt(`0x${signature.slice(66, 130)}`)
        if (parity === undefined || r <= 0n || r >= N || s <= 0n || s >= N) return false
        keys.delete(id)
        keys.set(id, known)
        const w = invert(s, N)
        const u1 = mod(BigInt(hash) * w, N)
        const u2 = mod(r * w, N)
        const sum = (u1 === 0n ? secp256k1.ProjectivePoint.ZERO : G.multiply(u1)).add(known.multiply(u2))
        if (sum.equals(secp256k1.ProjectivePoint.ZERO)) return false
        const R = sum.toAffine()
        return R.x === r && (R.y & 1n) === parity
      }
      let publicKey: Hex
      try {
        publicKey = await recoverPublicKey({ hash, signature })
      } catch {
        return false
      }
      if (!isAddressEqual(address, publicKeyToAddress(publicKey))) return false
      remember(id, publicKey)
      return true
    },
  }
}
