import Strata

/// How the store's reports reach ``FileDataSource/Configuration/diagnostics``: at once, or held back until a caller
/// that runs the store under a lock of its own has released it.
extension FileDataSource {
    /// The reports held back for one ``deferringReports(_:)`` call, and the store they are of.
    final class DeferredReports: Sendable {
        /// The store whose reports are held back; another store's go to its closure at once.
        let store: ObjectIdentifier

        /// The reports held back, in the order the store made them.
        let reports = Locked<[StrataError]>([])

        /// Creates an empty list for `store`.
        init(store: ObjectIdentifier) {
            self.store = store
        }
    }

    /// The reports the current task (or thread) holds back, when it runs in ``deferringReports(_:)``.
    @TaskLocal static var deferredReports: DeferredReports?

    /// Hands `report` to the diagnostics closure, or holds it back while the caller runs in
    /// ``deferringReports(_:)``.
    func report(_ report: StrataError) {
        guard let diagnostics = configuration.diagnostics else { return }
        if let deferred = Self.deferredReports, deferred.store == ObjectIdentifier(self) {
            deferred.reports.withLock { $0.append(report) }
        } else {
            diagnostics(report)
        }
    }

    /// Runs `body`, holding back every report the store makes meanwhile on this task, then hands them to the
    /// diagnostics closure, whether `body` returned or threw.
    ///
    /// For a caller that calls the store under a lock of its own: it takes the lock inside `body`, so the closure runs
    /// once the lock is released and may call that caller again (a closure called under it would wait for the lock
    /// for ever). Nested calls hand the reports over when the outermost returns.
    package func deferringReports<Result>(_ body: () throws -> Result) rethrows -> Result {
        if let outer = Self.deferredReports, outer.store == ObjectIdentifier(self) { return try body() }
        let deferred = DeferredReports(store: ObjectIdentifier(self))
        defer {
            if let diagnostics = configuration.diagnostics {
                for report in deferred.reports.withLock({ $0 }) { diagnostics(report) }
            }
        }
        return try Self.$deferredReports.withValue(deferred) { try body() }
    }
}
