import Foundation

/// The checksum line at the end of an entry file: the JSON, then `\n#<16 hexadecimal digits>\n`, the
/// ``EntrySeal/checksum(_:)`` of the JSON's bytes.
///
/// An entry changed into other valid JSON (by hand, by a tool, by bit rot) no longer matches its line and is
/// damage, not a value. A file that ends in `}` without the line was written by an earlier version of the
/// store and is read as it is.
enum EntrySeal {
    /// What an entry file's bytes hold.
    enum Contents: Equatable {
        /// JSON whose checksum line matches: the file is as the store wrote it.
        case sealed(Range<Int>)
        /// JSON without a checksum line (written before entries carried one).
        case legacy(Range<Int>)
        /// A checksum line that does not match, or a broken one: damage.
        case damaged(String)
    }

    /// The length of the checksum line: newline, `#`, 16 digits, newline.
    static let trailerLength = 19

    /// The checksum line for `json`.
    static func trailer(for json: UnsafeRawBufferPointer) -> [UInt8] {
        var line: [UInt8] = [0x0A, 0x23]
        line.reserveCapacity(trailerLength)
        let value = checksum(json)
        for shift in stride(from: 60, through: 0, by: -4) {
            let digit = UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0x0F
            line.append(digit < 10 ? 0x30 + digit : 0x61 + digit - 10)
        }
        line.append(0x0A)
        return line
    }

    /// Tells sealed, legacy and damaged entry files apart; the range is the JSON's.
    static func open(_ bytes: UnsafeRawBufferPointer) -> Contents {
        guard bytes.last == 0x0A else { return .legacy(0..<bytes.count) }
        guard bytes.count >= trailerLength else { return .damaged("too short for its checksum line") }
        let start = bytes.count - trailerLength
        guard bytes[start] == 0x0A, bytes[start + 1] == 0x23 else { return .damaged("no checksum line") }
        var stored: UInt64 = 0
        for index in (start + 2)..<(bytes.count - 1) {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return .damaged("a malformed checksum line")
            }
            stored = stored << 4 | UInt64(digit)
        }
        let json = UnsafeRawBufferPointer(rebasing: bytes[0..<start])
        guard checksum(json) == stored else { return .damaged("checksum mismatch") }
        return .sealed(0..<start)
    }

    /// Why an entry file is not as the store wrote it: what ``unseal(_:)`` throws.
    struct Damage: Error {
        /// The reason, for a report: "checksum mismatch", "no checksum line", ….
        let reason: String
    }

    /// The JSON's range in `data` and whether its checksum line held (`false` for a legacy file).
    ///
    /// - Throws: ``Damage`` for a damaged file.
    static func unseal(_ data: Data) throws(Damage) -> (json: Range<Int>, isSealed: Bool) {
        switch data.withUnsafeBytes({ open($0) }) {
        case .sealed(let range): (range, true)
        case .legacy(let range): (range, false)
        case .damaged(let reason): throw Damage(reason: reason)
        }
    }

    /// A 64-bit checksum of `bytes`, eight bytes a step: each little-endian word is mixed into the state with
    /// a multiply and a rotation, the tail and the length folded in at the end. It guards against damage and
    /// edits, not against an adversary who recomputes it; about a quarter of a nanosecond per byte.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var state: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            state = ((state ^ word) &* multiplier).rotatedLeft(by: 29)
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        state = ((state ^ tail) &* multiplier).rotatedLeft(by: 29)
        // A final avalanche (the finaliser of SplitMix64), so every input bit reaches every output bit.
        state = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
        state = (state ^ (state >> 27)) &* 0x94D0_49BB_1331_11EB
        return state ^ (state >> 31)
    }
}

extension UInt64 {
    /// The bits rotated left by `count` (0 < `count` < 64).
    fileprivate func rotatedLeft(by count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
