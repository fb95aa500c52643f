import Strata
internal import StrataSupport

/// The 128-bit name of an entry's file: two independent 64-bit hashes of the UTF-8 bytes of the key's canonical
/// (NFC) form, so that canonically equivalent keys — one key by the key rule of ``Strata/KeyValueStore`` — share one
/// file, and a key already in NFC (every ASCII key) keeps the name it always had.
///
/// The file name is the name in 32 lowercase hex digits plus ``fileExtension``, so no key — `../x`, an
/// absolute path, NUL bytes, 10 KB of emoji — can reach outside the store's folder. Two keys with the
/// same name (a 2⁻¹²⁸ chance) share a file; the key stored in the entry tells them apart on read.
struct EntryName: Hashable, Sendable {
    /// The extension of every entry file; the store never touches files without it.
    static let fileExtension = ".strata"

    let high: UInt64
    let low: UInt64

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The name of the entry for `key`: the hashes of its NFC form.
    init(key: String) {
        self.init(rawKey: StoreKey.canonical(key))
    }

    /// The hashes of `key`'s UTF-8 bytes as they are: the name an earlier version gave a key not in NFC.
    init(rawKey key: String) {
        var key = key
        (high, low) = key.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            return (XXHash64.hash(raw, seed: 0x5354_5241_5441_0001), XXHash64.hash(raw, seed: 0x9E37_79B9_7F4A_7C15))
        }
    }

    /// Parses a file name made by ``fileName``; `nil` for any other name.
    init?(fileName: String) {
        let utf8 = Array(fileName.utf8)
        let suffix = Array(Self.fileExtension.utf8)
        guard utf8.count == 32 + suffix.count, utf8[32...].elementsEqual(suffix) else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, character) in utf8[0..<32].enumerated() {
            let digit: UInt64
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(character - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(character - UInt8(ascii: "a") + 10)
            default: return nil
            }
            if index < 16 { high = high << 4 | digit } else { low = low << 4 | digit }
        }
        self.init(high: high, low: low)
    }

    /// The file name: 32 hex digits and the entry extension.
    var fileName: String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        let suffix = Self.fileExtension.utf8
        return String(unsafeUninitializedCapacity: 32 + suffix.count) { buffer in
            for index in 0..<16 {
                buffer[index] = digits[Int((high >> UInt64(60 - index * 4)) & 0xF)]
                buffer[16 + index] = digits[Int((low >> UInt64(60 - index * 4)) & 0xF)]
            }
            var position = 32
            for byte in suffix {
                buffer[position] = byte
                position += 1
            }
            return position
        }
    }
}
