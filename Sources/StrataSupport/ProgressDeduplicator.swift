import Strata

/// Forwards progress only when it has gone further than everything forwarded before, so a caller sees each step
/// once and the end exactly once, from any thread.
///
/// `HTTPClient.download` measures a `DownloadProgress` by its bytes, with completion beyond any count (so the
/// closing report of a length-less download still arrives); `DownloadService` measures its share done.
package final class ProgressDeduplicator<Progress: Sendable>: Sendable {
    private let forward: (@Sendable (Progress) -> Void)?
    private let measure: @Sendable (Progress) -> Double
    private let furthest = Locked<Double?>(nil)

    /// Creates a de-duplicator.
    ///
    /// - Parameters:
    ///   - measure: How far a progress value has come; only growing measures are forwarded.
    ///   - forward: The caller's callback; `nil` forwards nothing.
    package init(
        measure: @escaping @Sendable (Progress) -> Double,
        forward: (@Sendable (Progress) -> Void)?
    ) {
        self.measure = measure
        self.forward = forward
    }

    /// Forwards `progress` when it has gone further than every value forwarded so far.
    package func report(_ progress: Progress) {
        guard let forward else { return }
        let distance = measure(progress)
        let grew = furthest.withLock { furthest -> Bool in
            if let furthest, distance <= furthest { return false }
            furthest = distance
            return true
        }
        if grew { forward(progress) }
    }
}

extension ProgressDeduplicator where Progress == Double {
    /// Creates a de-duplicator of shares done (0 to 1): each growing share once, 1 once.
    ///
    /// - Parameter forward: The caller's callback; `nil` forwards nothing.
    package convenience init(_ forward: (@Sendable (Double) -> Void)?) {
        self.init(measure: { $0 }, forward: forward)
    }
}
