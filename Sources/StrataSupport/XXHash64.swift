/// xxHash64: a fast, non-cryptographic 64-bit hash, written in Swift so that deriving a file name or
/// checking an entry's bytes stays off the profile (SHA-256 with `String(format:)` costs ten raw reads).
///
/// It does not resist collisions: use it only where ``Hashing`` says a collision is harmless (a name whose file
/// stores the key that every read compares, a seal against accidental damage).
///
/// It hashes in one call (``hash(_:seed:)``) or in pieces (``update(_:)`` then ``finalize()``), with the
/// same result.
package struct XXHash64: Sendable {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    private let seed: UInt64
    private var lanes: (UInt64, UInt64, UInt64, UInt64)
    private var pending = PartialBlock(zero: (UInt64(0), UInt64(0), UInt64(0), UInt64(0)))
    private var totalLength: UInt64 = 0

    /// Starts a hash with a seed.
    package init(seed: UInt64 = 0) {
        self.seed = seed
        lanes = (
            seed &+ Self.prime1 &+ Self.prime2, seed &+ Self.prime2, seed, seed &- Self.prime1
        )
    }

    /// Hashes a buffer in one call.
    package static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        var hasher = XXHash64(seed: seed)
        hasher.update(bytes)
        return hasher.finalize()
    }

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        let value = accumulator &+ input &* prime2
        return ((value << 31) | (value >> 33)) &* prime1
    }

    @inline(__always)
    private static func merge(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
        (accumulator ^ round(0, lane)) &* prime1 &+ prime4
    }

    /// Adds bytes to the hash.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        totalLength &+= UInt64(bytes.count)
        var pending = self.pending
        var (v1, v2, v3, v4) = lanes
        pending.feed(bytes) { pointer, count in
            var pointer = pointer
            for _ in 0..<count {
                v1 = Self.round(v1, UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self)))
                v2 = Self.round(v2, UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
                v3 = Self.round(v3, UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
                v4 = Self.round(v4, UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
                pointer += 32
            }
        }
        lanes = (v1, v2, v3, v4)
        self.pending = pending
    }

    /// Returns the hash of every byte added so far.
    package func finalize() -> UInt64 {
        var hash: UInt64
        if totalLength >= 32 {
            let (v1, v2, v3, v4) = lanes
            hash = ((v1 << 1) | (v1 >> 63)) &+ ((v2 << 7) | (v2 >> 57))
            hash = hash &+ ((v3 << 12) | (v3 >> 52)) &+ ((v4 << 18) | (v4 >> 46))
            hash = Self.merge(hash, v1)
            hash = Self.merge(hash, v2)
            hash = Self.merge(hash, v3)
            hash = Self.merge(hash, v4)
        } else {
            hash = seed &+ Self.prime5
        }
        hash = hash &+ totalLength
        var tail = pending.storage
        let remaining = pending.count
        withUnsafeBytes(of: &tail) { raw in
            var offset = 0
            while remaining - offset >= 8 {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                hash ^= Self.round(0, word)
                hash = ((hash << 27) | (hash >> 37)) &* Self.prime1 &+ Self.prime4
                offset += 8
            }
            if remaining - offset >= 4 {
                let word = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                hash ^= word &* Self.prime1
                hash = ((hash << 23) | (hash >> 41)) &* Self.prime2 &+ Self.prime3
                offset += 4
            }
            while offset < remaining {
                hash ^= UInt64(raw[offset]) &* Self.prime5
                hash = ((hash << 11) | (hash >> 53)) &* Self.prime1
                offset += 1
            }
        }
        hash ^= hash >> 33
        hash = hash &* Self.prime2
        hash ^= hash >> 29
        hash = hash &* Self.prime3
        hash ^= hash >> 32
        return hash
    }
}
