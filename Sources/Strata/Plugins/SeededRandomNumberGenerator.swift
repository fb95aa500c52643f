/// A small, fast random number generator that repeats its sequence for a given seed (SplitMix64).
///
/// The retry and fault-injection plugins take one so that tests see the same jitter and the same
/// failures on every run. It is not cryptographically secure.
///
/// ```swift
/// var random = SeededRandomNumberGenerator(seed: 42)
/// let roll = Double.random(in: 0..<1, using: &random)
/// ```
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    ///
    /// - Parameter seed: Any value; equal seeds give equal sequences.
    public init(seed: UInt64) {
        state = seed
    }

    /// Returns the next value of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension RandomNumberGenerator {
    /// A uniformly distributed value in `0..<1` with 53 bits of precision.
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
