/// A small SHA-256 (FIPS 180-4): the collision-resistant hash of ``Hashing``'s rule.
///
/// The toolchain has no portable SHA-256 (CryptoKit is Apple-only).
package enum SHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The 32-byte digest of `bytes`.
    ///
    /// The message schedule and the padded tail live in stack buffers: deriving a file name costs no heap
    /// allocation but the result's.
    package static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
        )
        let message = Array(bytes)
        let bitLength = UInt64(message.count) &* 8
        // Whole blocks of the message, then one or two blocks of tail: the rest, 0x80, zeros, the length.
        let wholeBlocks = message.count / 64
        let restCount = message.count - wholeBlocks * 64
        let tailCount = restCount < 56 ? 64 : 128
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { words in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
                message.withUnsafeBufferPointer { message in
                    for block in 0..<wholeBlocks {
                        compress(
                            UnsafeBufferPointer(rebasing: message[(block * 64)..<(block * 64 + 64)]),
                            &state,
                            words
                        )
                    }
                    tail.initialize(repeating: 0)
                    for index in 0..<restCount { tail[index] = message[wholeBlocks * 64 + index] }
                }
                tail[restCount] = 0x80
                for index in 0..<8 {
                    tail[tailCount - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> UInt64(index * 8))
                }
                for start in stride(from: 0, to: tailCount, by: 64) {
                    compress(UnsafeBufferPointer(rebasing: tail[start..<(start + 64)]), &state, words)
                }
            }
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            digest.append(UInt8(word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Compresses one 64-byte block into `state`; `words` is scratch space for the message schedule.
    private static func compress(
        _ block: UnsafeBufferPointer<UInt8>,
        _ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
        _ words: UnsafeMutableBufferPointer<UInt32>
    ) {
        for index in 0..<16 {
            let offset = index * 4
            words[index] =
                UInt32(block[offset]) << 24 | UInt32(block[offset + 1]) << 16
                | UInt32(block[offset + 2]) << 8 | UInt32(block[offset + 3])
        }
        for index in 16..<64 {
            let s0 = rotate(words[index - 15], 7) ^ rotate(words[index - 15], 18) ^ (words[index - 15] >> 3)
            let s1 = rotate(words[index - 2], 17) ^ rotate(words[index - 2], 19) ^ (words[index - 2] >> 10)
            words[index] = words[index - 16] &+ s0 &+ words[index - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = state
        roundConstants.withUnsafeBufferPointer { constants in
            for index in 0..<64 {
                let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                let choice = (e & f) ^ (~e & g)
                let temp1 = h &+ sum1 &+ choice &+ constants[index] &+ words[index]
                let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temp2 = sum0 &+ majority
                h = g
                g = f
                f = e
                e = d &+ temp1
                d = c
                c = b
                b = a
                a = temp1 &+ temp2
            }
        }
        state = (
            state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g,
            state.7 &+ h
        )
    }

    /// Lowercase hexadecimal of the first `byteCount` bytes of the digest of `string`'s UTF-8.
    package static func hex(of string: String, byteCount: Int = 16) -> String {
        let digest = digest(string.utf8)
        let count = min(byteCount, digest.count)
        return String(unsafeUninitializedCapacity: count * 2) { characters in
            for (index, byte) in digest.prefix(count).enumerated() {
                characters[2 * index] = hexDigit(byte >> 4)
                characters[2 * index + 1] = hexDigit(byte & 0x0f)
            }
            return count * 2
        }
    }

    @inline(__always)
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x61 + value - 10
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
