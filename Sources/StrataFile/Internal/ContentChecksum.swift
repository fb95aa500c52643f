/// The checksum of an entry's data: a two-level Fletcher sum in eight independent lanes, cheap enough to run
/// on every read at about the speed of a memory copy (xxHash64, which it replaces for the data, costs as
/// much as the read of a 1 MiB entry).
///
/// The data is taken 64 bytes at a time as eight little-endian 64-bit words, one per lane. Each word is
/// added to its lane as two 32-bit halves: `a += half; b += a` (wrapping 64-bit arithmetic). Because halves
/// are 32-bit and sums 64-bit, `a` never wraps below 16 GiB of data, so:
///
/// - any change confined to one 32-bit half (every single bit flip, every byte) changes `a`;
/// - changes in two halves of one lane that leave `a` as it was change `b` by `d × distance` with both
///   factors below 2³², which is never 0 modulo 2⁶⁴ (swapped or shifted words are caught this way).
///
/// The 16 sums and the length are then folded into 64 bits, each step a bijection of the running value, so
/// any other corruption passes with a probability of about 2⁻⁶⁴. It is not a hash against an adversary:
/// it guards against bit rot, torn writes and truncation, as ZFS's Fletcher checksums do.
///
/// It hashes in one call (``checksum(_:)``) or in pieces (``update(_:)`` then ``finalize()``), with the
/// same result.
struct ContentChecksum {
    /// Bytes per round: eight lanes of one 64-bit word.
    static let blockSize = 64

    private var a: Lanes = Self.zero
    private var b: Lanes = Self.zero
    private var buffer: Lanes = Self.zero
    private var buffered = 0
    private var totalLength: UInt64 = 0

    /// Starts a checksum.
    init() {}

    /// The checksum of a buffer, in one call.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var checksum = ContentChecksum()
        checksum.update(bytes)
        return checksum.finalize()
    }

    /// Adds bytes.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let count = bytes.count
        totalLength &+= UInt64(count)
        var offset = 0
        if buffered > 0 {
            let take = min(Self.blockSize - buffered, count)
            withUnsafeMutableBytes(of: &buffer) { raw in
                raw.baseAddress?.advanced(by: buffered).copyMemory(from: base, byteCount: take)
            }
            buffered += take
            offset = take
            guard buffered == Self.blockSize else { return }
            let block = buffer
            withUnsafeBytes(of: block) { raw in
                if let pointer = raw.baseAddress { addBlocks(pointer, count: 1) }
            }
            buffered = 0
        }
        let blocks = (count - offset) / Self.blockSize
        if blocks > 0 {
            addBlocks(base + offset, count: blocks)
            offset += blocks * Self.blockSize
        }
        if offset < count {
            let rest = count - offset
            withUnsafeMutableBytes(of: &buffer) { raw in
                raw.baseAddress?.copyMemory(from: base + offset, byteCount: rest)
            }
            buffered = rest
        }
    }

    /// Returns the checksum of every byte added so far.
    func finalize() -> UInt64 {
        var a = self.a
        var b = self.b
        if buffered > 0 {
            // The last, partial block: zero-padded (the length, folded in below, tells the padding apart).
            var tail = Self.zero
            let remaining = buffered
            withUnsafeMutableBytes(of: &tail) { raw in
                withUnsafeBytes(of: buffer) { source in
                    raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<remaining]))
                }
            }
            Self.add(tail, to: &a, &b)
        }
        var hash = totalLength &* Self.prime1
        for value in [a.0, a.1, a.2, a.3, a.4, a.5, a.6, a.7, b.0, b.1, b.2, b.3, b.4, b.5, b.6, b.7] {
            hash = (hash ^ value) &* Self.prime2
            hash ^= hash >> 29
        }
        hash ^= hash >> 32
        hash = hash &* Self.prime3
        hash ^= hash >> 29
        return hash
    }

    // MARK: - Rounds

    private typealias Lanes = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    private static let zero: Lanes = (0, 0, 0, 0, 0, 0, 0, 0)

    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9

    /// Adds `count` blocks of 64 bytes from `pointer`, eight lanes kept in registers.
    private mutating func addBlocks(_ pointer: UnsafeRawPointer, count: Int) {
        var (a0, a1, a2, a3, a4, a5, a6, a7) = a
        var (b0, b1, b2, b3, b4, b5, b6, b7) = b
        var pointer = pointer
        for _ in 0..<count {
            Self.step(&a0, &b0, pointer.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
            Self.step(&a1, &b1, pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            Self.step(&a2, &b2, pointer.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            Self.step(&a3, &b3, pointer.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            Self.step(&a4, &b4, pointer.loadUnaligned(fromByteOffset: 32, as: UInt64.self))
            Self.step(&a5, &b5, pointer.loadUnaligned(fromByteOffset: 40, as: UInt64.self))
            Self.step(&a6, &b6, pointer.loadUnaligned(fromByteOffset: 48, as: UInt64.self))
            Self.step(&a7, &b7, pointer.loadUnaligned(fromByteOffset: 56, as: UInt64.self))
            pointer += Self.blockSize
        }
        a = (a0, a1, a2, a3, a4, a5, a6, a7)
        b = (b0, b1, b2, b3, b4, b5, b6, b7)
    }

    /// Adds one block held in lanes (the zero-padded tail).
    private static func add(_ block: Lanes, to a: inout Lanes, _ b: inout Lanes) {
        step(&a.0, &b.0, block.0)
        step(&a.1, &b.1, block.1)
        step(&a.2, &b.2, block.2)
        step(&a.3, &b.3, block.3)
        step(&a.4, &b.4, block.4)
        step(&a.5, &b.5, block.5)
        step(&a.6, &b.6, block.6)
        step(&a.7, &b.7, block.7)
    }

    /// One word into one lane: its low, then its high 32-bit half.
    @inline(__always)
    private static func step(_ a: inout UInt64, _ b: inout UInt64, _ word: UInt64) {
        let word = UInt64(littleEndian: word)
        a &+= word & 0xFFFF_FFFF
        b &+= a
        a &+= word >> 32
        b &+= a
    }
}
