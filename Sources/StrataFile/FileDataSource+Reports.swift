import Strata

/// How the store's reports reach ``FileDataSource/Configuration/diagnostics``: at once, or held back until a caller
/// that runs the store under a lock of its own has released it.
extension FileDataSource {
    /// Hands `report` to the diagnostics closure, or holds it back while the caller runs in
    /// ``deferringReports(_:)``.
    func report(_ report: StrataError) {
        guard let diagnostics = configuration.diagnostics else { return }
        HeldReports.deliver(report, of: ObjectIdentifier(self), to: diagnostics)
    }

    /// Runs `body`, holding back every report the store makes meanwhile on this task, then hands them to the
    /// diagnostics closure, whether `body` returned or threw.
    ///
    /// For a caller that calls the store under a lock of its own: it takes the lock inside `body`, so the closure runs
    /// once the lock is released and may call that caller again (a closure called under it would wait for the lock
    /// for ever). Nested calls hand the reports over when the outermost returns.
    package func deferringReports<Result>(_ body: () throws -> Result) rethrows -> Result {
        try HeldReports.holding(for: ObjectIdentifier(self), to: configuration.diagnostics, body)
    }
}
