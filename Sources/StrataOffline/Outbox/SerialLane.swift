/// Runs an actor's async jobs one after another: a job that suspends (on file I/O) holds the lane, and the next
/// waits for it, so an actor's state and its files change in the same order.
///
/// Owned by one actor and used only in its isolation (each call inherits it), so its state needs no lock; its
/// waiters are the actor's concurrent callers, one each.
final class SerialLane {
    /// Whether a job holds the lane.
    private var isBusy = false
    /// The jobs waiting for it, first come first served.
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// The number of jobs waiting for the lane.
    var waiterCount: Int { waiters.count }

    /// Creates a free lane.
    init() {}

    /// Runs `job` once the lane is free.
    func run<Result>(
        isolation actor: isolated (any Actor)? = #isolation,
        _ job: () async throws -> Result
    ) async rethrows -> Result {
        if isBusy {
            // The job before hands the lane over without freeing it: no caller arriving meanwhile takes it.
            await withCheckedContinuation { waiters.append($0) }
        } else {
            isBusy = true
        }
        defer {
            if waiters.isEmpty { isBusy = false } else { waiters.removeFirst().resume() }
        }
        return try await job()
    }
}
