/// Diagnostics reports held back while their maker runs under a caller's lock, and handed over once it is released.
///
/// A store (or a cache over stores) reports through ``deliver(_:of:to:)``. A caller that calls it under a lock of its
/// own wraps the call in ``holding(for:to:_:)`` and takes the lock inside: the diagnostics closure then runs once the
/// lock is released, and may call that caller again (a closure called under the lock would wait for it for ever).
package final class HeldReports: Sendable {
    /// Whose reports are held back; another maker's go to its closure at once.
    private let owner: ObjectIdentifier

    /// The reports held back, in the order they were made.
    private let reports = Locked<[StrataError]>([])

    /// The reports the current task (or thread) holds back, when it runs in ``holding(for:to:_:)``.
    @TaskLocal private static var current: HeldReports?

    private init(owner: ObjectIdentifier) {
        self.owner = owner
    }

    /// Hands `report` of `owner` to `diagnostics`, or holds it back while the caller runs in ``holding(for:to:_:)`` for
    /// the same owner.
    ///
    /// - Parameters:
    ///   - report: The report.
    ///   - owner: Who made it: the store, or the object whose lock its caller holds.
    ///   - diagnostics: The closure the report goes to.
    package static func deliver(
        _ report: StrataError,
        of owner: ObjectIdentifier,
        to diagnostics: (StrataError) -> Void
    ) {
        if let held = current, held.owner == owner {
            held.reports.withLock { $0.append(report) }
        } else {
            diagnostics(report)
        }
    }

    /// Runs `body`, holding back every report of `owner` made meanwhile on this task, then hands them to `diagnostics`,
    /// whether `body` returned or threw. Nested calls for one owner hand the reports over when the outermost returns.
    ///
    /// - Parameters:
    ///   - owner: Whose reports are held back.
    ///   - diagnostics: The closure they go to afterwards (`nil`: they are dropped, as they would have been).
    ///   - body: The work, which takes the caller's lock inside.
    package static func holding<Result>(
        for owner: ObjectIdentifier,
        to diagnostics: ((StrataError) -> Void)?,
        _ body: () throws -> Result
    ) rethrows -> Result {
        if let outer = current, outer.owner == owner { return try body() }
        let held = HeldReports(owner: owner)
        defer {
            if let diagnostics {
                for report in held.reports.withLock({ $0 }) { diagnostics(report) }
            }
        }
        return try $current.withValue(held) { try body() }
    }
}
