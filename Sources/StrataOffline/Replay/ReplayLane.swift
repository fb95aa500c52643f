/// Runs replays one at a time: a replay that starts while another runs waits for it.
actor ReplayLane {
    /// The serialising lane.
    private let lane = SerialLane()

    /// Runs `replay` once the previous one ended.
    func run<Result: Sendable>(_ replay: @Sendable () async -> Result) async -> Result {
        await lane.run { await replay() }
    }

    /// Runs `replay` once the previous one ended; `nil` without running it when the calling task is cancelled
    /// before then (the previous replay may wait on a slow main or a conflict resolver for long).
    func runUnlessCancelled<Result: Sendable>(_ replay: @Sendable () async -> Result) async -> Result? {
        await lane.runUnlessCancelled { await replay() }
    }
}
