/// A 128-bit FNV-1a hash in hexadecimal: two 64-bit lanes over the same bytes, the second with another offset
/// basis and each byte XOR `0x5c`.
///
/// It does not resist collisions. `CachedFetcher` uses it as the version of a body that came without an `ETag`
/// (sent back to the same server, which controls those bytes anyway); see ``Hashing``. Its digits are part of what
/// existing caches hold, so they never change.
package enum FNV1a128 {
    /// 32 lowercase hex digits for the UTF-8 bytes of `text`.
    package static func hex(_ text: String) -> String {
        hex(bytes: Array(text.utf8))
    }

    /// 32 lowercase hex digits for `bytes`.
    package static func hex(bytes: some Sequence<UInt8>) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x6c62_272e_07bb_0142
        let prime: UInt64 = 0x0000_0100_0000_01b3
        for byte in bytes {
            first = (first ^ UInt64(byte)) &* prime
            second = (second ^ UInt64(byte ^ 0x5c)) &* prime
        }
        return pad(first) + pad(second)
    }

    /// `value` in 16 hex digits, zero-padded.
    private static func pad(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
