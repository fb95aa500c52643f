internal import CStrataChecksum

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
/// it guards against bit rot, torn writes and truncation, as ZFS's Fletcher checksums do (see ``Hashing``).
///
/// It hashes in one call (``checksum(_:)``) or in pieces (``update(_:)`` then ``finalize()``), with the
/// same result.
///
/// On x86-64 with AVX2 (chosen at run time) runs of blocks go through a C kernel (`CStrataChecksum`) that
/// computes the same sums in another form: per lane, the sum `W` of the words, the sum `H` of their high
/// halves, and the sums `PW`, `PH` of those running sums after each block. With `s = lo + hi = w − (2³² − 1)·hi`
/// (mod 2⁶⁴), `n` blocks take a lane from `(a, b)` to `a + W − (2³² − 1)·H` and
/// `b + 2n·a + 2·(PW − (2³² − 1)·PH) − H` — exactly what the step-by-step rounds give (tested against them),
/// in five vector operations per word instead of six, at twice the width: about 12 µs per MiB instead of 27.
package struct ContentChecksum: Sendable {
    /// Bytes per round: eight lanes of one 64-bit word.
    package static let blockSize = 64

    private var a: Lanes = Self.zero
    private var b: Lanes = Self.zero
    private var pending = PartialBlock(zero: Self.zero)
    private var totalLength: UInt64 = 0
    /// Whether runs of blocks go through the vector kernel; `false` (tests) keeps the Swift rounds.
    private let usesKernel: Bool

    /// Whether the vector kernel runs on this processor.
    package static let kernelAvailable = strata_checksum_kernel_available() != 0
    /// The fewest blocks handed to the kernel: below, the call and the fold cost more than they save.
    private static let kernelMinimumBlocks = 16

    /// Starts a checksum.
    ///
    /// - Parameter usesKernel: Whether runs of blocks may go through the vector kernel, when the processor
    ///   has it; the result is the same either way.
    package init(usesKernel: Bool = true) {
        self.usesKernel = usesKernel && Self.kernelAvailable
    }

    /// The checksum of a buffer, in one call.
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var checksum = ContentChecksum()
        checksum.update(bytes)
        return checksum.finalize()
    }

    /// Adds bytes.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        totalLength &+= UInt64(bytes.count)
        var pending = self.pending
        pending.feed(bytes) { pointer, count in addBlocks(pointer, count: count) }
        self.pending = pending
    }

    /// Returns the checksum of every byte added so far.
    package func finalize() -> UInt64 {
        var a = self.a
        var b = self.b
        if pending.count > 0 {
            // The last, partial block: zero-padded (the length, folded in below, tells the padding apart).
            var tail = Self.zero
            let remaining = pending.count
            withUnsafeMutableBytes(of: &tail) { raw in
                withUnsafeBytes(of: pending.storage) { source in
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
        if usesKernel, count >= Self.kernelMinimumBlocks, addBlocksWithKernel(pointer, count: count) { return }
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

    /// Adds `count` blocks through the vector kernel, then folds its four sums per lane into `a` and `b`
    /// (see the type's documentation); `false` when the kernel did not run.
    private mutating func addBlocksWithKernel(_ pointer: UnsafeRawPointer, count: Int) -> Bool {
        var sums = (Self.zero, Self.zero, Self.zero, Self.zero)
        let ran = withUnsafeMutableBytes(of: &sums) { raw -> Bool in
            guard let base = raw.baseAddress else { return false }
            return strata_checksum_sums(pointer, count, base.assumingMemoryBound(to: UInt64.self)) != 0
        }
        guard ran else { return false }
        let blocks = UInt64(truncatingIfNeeded: count)
        @inline(__always)
        func fold(_ a: inout UInt64, _ b: inout UInt64, _ w: UInt64, _ h: UInt64, _ pw: UInt64, _ ph: UInt64) {
            let halfMask: UInt64 = 0xFFFF_FFFF
            b = b &+ 2 &* blocks &* a &+ 2 &* (pw &- halfMask &* ph) &- h
            a = a &+ w &- halfMask &* h
        }
        let (w, h, pw, ph) = sums
        fold(&a.0, &b.0, w.0, h.0, pw.0, ph.0)
        fold(&a.1, &b.1, w.1, h.1, pw.1, ph.1)
        fold(&a.2, &b.2, w.2, h.2, pw.2, ph.2)
        fold(&a.3, &b.3, w.3, h.3, pw.3, ph.3)
        fold(&a.4, &b.4, w.4, h.4, pw.4, ph.4)
        fold(&a.5, &b.5, w.5, h.5, pw.5, ph.5)
        fold(&a.6, &b.6, w.6, h.6, pw.6, ph.6)
        fold(&a.7, &b.7, w.7, h.7, pw.7, ph.7)
        return true
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
