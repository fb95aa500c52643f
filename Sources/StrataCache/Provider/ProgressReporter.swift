import Strata

/// Forwards only growing progress values, so a caller sees each share once and 1.0 exactly once.
final class ProgressReporter: Sendable {
    private let forward: (@Sendable (Double) -> Void)?
    private let last = Locked<Double>(-1)

    init(_ forward: (@Sendable (Double) -> Void)?) {
        self.forward = forward
    }

    func report(_ value: Double) {
        guard let forward else { return }
        let grew = last.withLock { last -> Bool in
            guard value > last else { return false }
            last = value
            return true
        }
        if grew { forward(value) }
    }
}
