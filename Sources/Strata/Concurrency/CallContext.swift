/// The task-local values that tie work to the call it runs for: the call's trail (``CallTrail/current``), the report
/// of a stale answer (`StaleAnswerReport.current`), the mark of a stream's own work
/// (`ObservationScope.isStreamRefresh`) and that of work a call left running (``isLeftRunning``).
package enum CallContext {
    /// Whether this task runs work a call left running after it returned (a stale-while-revalidate refresh, an
    /// offline replay) and no record of that work was opened yet: a tracer starts the work's first span as a trace
    /// of its own, linked to the call's span (which has ended, or soon will), and clears the mark inside it.
    @TaskLocal package static var isLeftRunning = false

    /// Runs `work`, which a call leaves running after it returns, outside that call (``outside(isolation:_:)``)
    /// and marked ``isLeftRunning``.
    ///
    /// - Parameter work: The work.
    /// - Returns: What `work` returns.
    package static func leftRunning<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ work: () async throws -> Result
    ) async rethrows -> Result {
        try await outside { try await $isLeftRunning.withValue(true) { try await work() } }
    }

    /// Starts `work`, shared by several calls (`SharedAnswer`), in a task of its own, outside the call of the task
    /// that starts it (``outside(isolation:_:)``): `work` receives that call's trail, if a plugin bound one, for the
    /// shared work's trail to stand for (``CallTrail/collectingSteps(for:_:)``).
    ///
    /// By default the task runs at once on the starter's thread, up to its first suspension (`Task.immediate`, where
    /// the runtime has it): the starter is about to wait for the work anyway, and a task queued instead costs a
    /// thread's wake-up before the work begins, and another after it when the work ran on that thread. The task is
    /// still not the starter's child: cancelling the starter does not cancel it.
    ///
    /// - Parameters:
    ///   - atOnce: Whether the task starts on the starter's thread; `false` queues it, for work that first waits for
    ///     other callers to join it (a batch's window).
    ///   - work: The work.
    /// - Returns: The task, which cancelling ends.
    @discardableResult
    static func startShared(
        atOnce: Bool = true,
        _ work: @escaping @Sendable (_ starter: CallTrail?) async -> Void
    ) -> Task<Void, Never> {
        // Without a trail bound anywhere there is none to look up
        let starter = CallTrail.mayBeBound ? CallTrail.current : nil
        if atOnce, #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            return Task.immediate { await outside { await work(starter) } }
        } else {
            return Task { await outside { await work(starter) } }
        }
    }

    /// Runs `work` outside any call: with no trail, no stale-answer report, and not as a stream's re-read.
    ///
    /// Work a call starts but that is not part of it (a background refresh, an offline replay, a run shared by
    /// several callers) runs here. An unstructured task inherits its starter's task-locals; without this, its
    /// source calls would be steps of the starter's call, its stale answers would be the starter's alone, and its
    /// cache writes would be announced as a stream's own (which stream observers ignore).
    ///
    /// - Parameter work: The work.
    /// - Returns: What `work` returns.
    package static func outside<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ work: () async throws -> Result
    ) async rethrows -> Result {
        try await CallTrail.$current.withValue(nil) {
            try await ObservationScope.$isStreamRefresh.withValue(false) {
                try await StaleAnswerReport.$current.withValue(nil) { try await work() }
            }
        }
    }
}
