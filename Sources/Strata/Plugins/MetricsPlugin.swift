/// A plugin that counts hits, misses and errors and measures latency, per source, method and operation.
///
/// Read the numbers at any time with ``snapshot()``; recording is one lock and a few additions per call.
/// Share one plugin between several sources to see them side by side (``MetricsSnapshot/Key/source``).
///
/// ```swift
/// let metrics = MetricsPlugin()
/// let users = CacheRepository(main: api, cache: memory).plugins([metrics], name: "users")
/// // …
/// let reads = metrics.snapshot().total(method: .get)
/// print(reads.hits, reads.misses, reads.errors, reads.latency.p99 ?? .zero)
/// ```
public final class MetricsPlugin: StrataPlugin {
    private let clock: any WallClock
    private let entries = Locked<[MetricsSnapshot.Key: CallMetrics]>([:])

    /// Creates the plugin with nothing counted.
    ///
    /// - Parameter clock: What durations are measured on.
    public init(clock: any WallClock = SystemClock()) {
        self.clock = clock
    }

    /// The metrics so far.
    public func snapshot() -> MetricsSnapshot {
        MetricsSnapshot(entries: entries.withLock { $0 })
    }

    /// Forgets everything counted so far.
    public func reset() {
        entries.withLock { $0.removeAll() }
    }

    /// Runs the call and counts its outcome and duration.
    public func intercept<R: Sendable>(
        _ call: PluginCall,
        next: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        let stopwatch = PluginStopwatch(clock: clock)
        do {
            let result = try await next()
            record(call, error: nil, duration: stopwatch.elapsed())
            return result
        } catch {
            record(call, error: error, duration: stopwatch.elapsed())
            throw error
        }
    }

    private func record(_ call: PluginCall, error: (any Error)?, duration: Duration) {
        let key = MetricsSnapshot.Key(source: call.source, method: call.method, operation: call.operationName)
        entries.withLock { $0[key, default: CallMetrics()].record(error: error, duration: duration) }
    }
}
