/// How a repository used as a source tells the repository above it that its answer was a stale cached value.
///
/// A data source answers with an entry and no word on its freshness, but a ``CacheRepository`` read through a
/// ``CacheRepositorySource`` may serve a stale entry (inside a stale-while-revalidate window, after main failed and
/// the fallback rule accepted it). The repository above reads its main source inside ``reading(_:)``; the repository
/// source marks the report when its answer was stale, and the repository above then reports the answer as stale
/// (``CallOutcome/staleServed``, `isStale` in a response), does not store it as current, and does not count it as
/// main's answer (``CacheRepository/Configuration/onMainAnswer``). The report travels as a task-local value, so it
/// crosses every wrapper between the two (plugins, mappers, validators) unchanged.
enum StaleAnswerReport {
    /// The report of the main read under way in this task, if any: non-zero once a source marked its answer stale.
    @TaskLocal static var current: AtomicCount?

    /// Runs `read` with a report of its own, and returns its result with whether a source marked it stale.
    ///
    /// - Parameter read: The main read.
    static func reading<Result: Sendable>(
        _ read: @Sendable () async throws -> Result
    ) async throws -> (result: Result, isStale: Bool) {
        let report = AtomicCount()
        let result = try await $current.withValue(report) { try await read() }
        return (result, report.value != 0)
    }

    /// Runs `read`, a repository's own read of its tiers, shielded from the report of the read it serves: only its
    /// answer as a whole is stale or not (``mark(_:)``).
    ///
    /// - Parameter read: The repository's read.
    static func shielded<Result: Sendable>(_ read: @Sendable () async throws -> Result) async throws -> Result {
        try await $current.withValue(nil) { try await read() }
    }

    /// Marks the report of the read under way, if any, when `isStale`.
    ///
    /// - Parameter isStale: Whether the answer given to that read was a stale cached value.
    static func mark(_ isStale: Bool) {
        if isStale { current?.add(1) }
    }
}
