/// A 128-bit FNV-1a hash of a string's UTF-8 bytes (two 64-bit lanes with different seeds) in hexadecimal:
/// a safe, stable file name for any key, and a content hash where no `ETag` exists.
enum StableHash {
    /// 32 lowercase hex digits.
    static func hex(_ text: String) -> String {
        hex(bytes: Array(text.utf8))
    }

    /// 32 lowercase hex digits for bytes.
    static func hex(bytes: some Sequence<UInt8>) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x6c62_272e_07bb_0142
        let prime: UInt64 = 0x0000_0100_0000_01b3
        for byte in bytes {
            first = (first ^ UInt64(byte)) &* prime
            second = (second ^ UInt64(byte ^ 0x5c)) &* prime
        }
        return pad(first) + pad(second)
    }

    private static func pad(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
