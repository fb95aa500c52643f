/// A random number generator that several tasks draw from, one draw at a time.
final class SharedRandom: Sendable {
    private let generator: Locked<any RandomNumberGenerator & Sendable>

    /// Wraps a generator.
    init(_ generator: any RandomNumberGenerator & Sendable) {
        self.generator = Locked(generator)
    }

    /// Returns a value in `0..<1`.
    func unitInterval() -> Double {
        generator.withLock { $0.nextUnitInterval() }
    }
}
