import Foundation

/// Deterministic data shared by a Strata benchmark and its baseline, so both run on the same keys,
/// values and access order.
public enum Fixture {
    /// Keys `key-0`, `key-1`, … (short, so hashing stays cheap and the data structure's own cost shows).
    public static func keys(_ count: Int, prefix: String = "key-") -> [String] {
        (0..<count).map { "\(prefix)\($0)" }
    }

    /// `count` distinct buffers of `size` bytes (distinct, so no two tasks share one reference count).
    public static func values(_ count: Int, size: Int) -> [Data] {
        (0..<count).map { index in
            Data((0..<size).map { UInt8(truncatingIfNeeded: index &+ $0) })
        }
    }

    /// A pseudo-random permutation of `0..<count` (the order of reads: no sequential prefetch help).
    public static func accessOrder(_ count: Int, seed: UInt64 = 0x5EED) -> [Int] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).shuffled(using: &generator)
    }
}

/// A small deterministic generator (SplitMix64), so every run reads in the same order.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A cursor over an access order: each iteration takes the next `count` positions, wrapping around.
///
/// The order's length must be a multiple of `count`, so a batch never wraps in the middle.
public struct Cursor: Sendable {
    /// The access order: indices into the fixture's keys.
    public let order: [Int]
    private var position = 0

    /// Creates a cursor over `order`.
    public init(order: [Int]) { self.order = order }

    /// The positions in ``order`` of the next `count` accesses.
    public mutating func next(_ count: Int) -> Range<Int> {
        precondition(order.count % count == 0, "the order's length must be a multiple of the batch")
        let range = position..<(position + count)
        position = range.upperBound == order.count ? 0 : range.upperBound
        return range
    }
}
