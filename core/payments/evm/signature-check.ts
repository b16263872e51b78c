import { type Address, bytesToHex, type Hex, hexToBytes, isAddressEqual, recoverPublicKey } from 'viem'
import { publicKeyToAddress } from 'viem/accounts'

/** Verifies that `signature` over a 32-byte `hash` was made by the key of `address`. */
export type SignatureCheck = (input: { address: Address; hash: Hex; signature: Hex }) => Promise<boolean>

/** r ‖ s ‖ v, 65 bytes, and a 32-byte digest: the form libsecp256k1 recovers from (others go through viem). */
const RSV = /^0x[0-9a-fA-F]{130}$/
const DIGEST = /^0x[0-9a-fA-F]{64}$/

type Secp256k1 = typeof import('tiny-secp256k1')
let library: Promise<Secp256k1 | undefined> | undefined
/**
 * libsecp256k1 (Bitcoin Core's, compiled to WebAssembly by bitcoinjs' tiny-secp256k1), loaded on
 * the first signature: its module costs 10-20 MB of memory, which a service that never verifies an
 * EVM payment does not pay. Undefined when it cannot be loaded (no WebAssembly, no memory for it):
 * signatures are then recovered by viem, with the same answers, and the load is tried again later.
 */
const secp256k1 = (): Promise<Secp256k1 | undefined> => {
  library ??= import('tiny-secp256k1').catch(() => {
    library = undefined
    return undefined
  })
  return library
}

/** viem's own check: recover the key on noble's curve, compare its address; unreadable is false. */
async function viemCheck(address: Address, hash: Hex, signature: Hex): Promise<boolean> {
  try {
    return isAddressEqual(address, publicKeyToAddress(await recoverPublicKey({ hash, signature })))
  } catch {
    return false
  }
}

/**
 * ECDSA secp256k1 signature checks by address, answering exactly what viem's `verifyHash` answers
 * (recover the public key, compare its address; anything unreadable is false).
 *
 * Why not viem's own recovery: it runs on noble's pure-JavaScript curve, about 5 ms per recovery
 * (2-3 ms with a table kept per payer), the largest CPU cost of an x402 payment; libsecp256k1
 * recovers in about 0.3-0.6 ms with no per-payer state. node:crypto cannot do it (no secp256k1
 * recovery, and it verifies only digests it computes itself, not an EIP-712 digest). Recovery
 * accepts a high `s` as viem does (whether a token contract accepts it is the chain's check at
 * settlement); `v` is 27/28 or the y parity 0/1. Signatures of any other length (EIP-2098 compact
 * ones) go through viem, as every signature does while libsecp256k1 cannot be loaded.
 */
export const checkSignature: SignatureCheck = async ({ address, hash, signature }) => {
  if (RSV.test(signature) && DIGEST.test(hash)) {
    const v = Number.parseInt(signature.slice(130), 16)
    const recoveryId = v === 0 || v === 27 ? 0 : v === 1 || v === 28 ? 1 : undefined
    if (recoveryId === undefined) return false
    const ecc = await secp256k1()
    if (!ecc) return viemCheck(address, hash, signature)
    let publicKey: Uint8Array | null
    try {
      publicKey = ecc.recover(hexToBytes(hash), hexToBytes(`0x${signature.slice(2, 130)}`), recoveryId, false)
    } catch {
      return false // r or s zero or not below the curve order
    }
    return publicKey !== null && isAddressEqual(address, publicKeyToAddress(bytesToHex(publicKey)))
  }
  return viemCheck(address, hash, signature)
}
