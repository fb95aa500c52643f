#if Postgres
    import Foundation
    import Strata

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// One write of the writer, with the wall-clock times it was sent and its commit acknowledged.
    struct FleetWrite: Sendable {
        var key: String
        var sequence: Int
        var sent: Double
        var acknowledged: Double
    }

    /// The writer's writes, shared with the checker.
    final class WriteLog: Sendable {
        private struct State {
            var writes: [FleetWrite] = []
            var byKey: [String: [FleetWrite]] = [:]
            var finished = false
        }

        private let state = Locked(State())

        func record(_ write: FleetWrite) {
            state.withLock { state in
                state.writes.append(write)
                state.byKey[write.key, default: []].append(write)
            }
        }

        func finish() { state.withLock { $0.finished = true } }

        var isFinished: Bool { state.withLock { $0.finished } }

        var writes: [FleetWrite] { state.withLock { $0.writes } }

        /// The newest sequence of `key` acknowledged at or before `time`, or -1.
        func required(_ key: String, acknowledgedBy time: Double) -> Int {
            state.withLock { state in state.byKey[key]?.last { $0.acknowledged <= time }?.sequence ?? -1 }
        }
    }

    /// Reads from one instance all the while, and counts every value older than what was acknowledged a window
    /// before the read began.
    final class StaleChecker: Sendable {
        struct Counts: Sendable {
            var reads = 0
            var stale = 0
            var staleInsideWindow = 0
        }

        let window: Double
        let log: WriteLog
        private let state = Locked(Counts())

        init(window: Double, log: WriteLog) {
            self.window = window
            self.log = log
        }

        var counts: Counts { state.withLock { $0 } }

        func check(_ instance: URL, keys: Int) async throws {
            var index = 0
            while !log.isFinished {
                index += 7
                let key = "k\(index % keys)"
                let began = wallClock()
                let (data, response) = try await URLSession.shared.data(
                    from: instance.appendingPathComponent("values/\(key)")
                )
                let sequence =
                    (response as? HTTPURLResponse)?.statusCode == 200
                    ? try JSONDecoder().decode(Reading.self, from: data).sequence : -1
                let isStale = sequence < log.required(key, acknowledgedBy: began - window)
                let isOlder = sequence < log.required(key, acknowledgedBy: began)
                state.withLock { counts in
                    counts.reads += 1
                    if isStale { counts.stale += 1 }
                    if isOlder && !isStale { counts.staleInsideWindow += 1 }
                }
            }
        }
    }

    /// The latency from each write to its drop in each instance's cache.
    struct FleetLatencies {
        var fromAcknowledged: Percentiles
        var fromSent: Percentiles
        var missing = 0

        init(writes: [FleetWrite], drops: [[FleetDrop]]) {
            var fromAcknowledged: [Double] = []
            var fromSent: [Double] = []
            var missing = 0
            for instanceDrops in drops {
                let byKey = Dictionary(grouping: instanceDrops, by: \.key).mapValues { $0.map(\.time).sorted() }
                for write in writes {
                    // The write's drop is the key's first drop after it was sent: writes of one key are far apart.
                    guard let drop = byKey[write.key]?.first(where: { $0 >= write.sent }) else {
                        missing += 1
                        continue
                    }
                    fromAcknowledged.append(drop - write.acknowledged)
                    fromSent.append(drop - write.sent)
                }
            }
            self.fromAcknowledged = Percentiles(fromAcknowledged)
            self.fromSent = Percentiles(fromSent)
            self.missing = missing
        }
    }

    /// p50, p99 and the maximum of a sample, printed in milliseconds.
    struct Percentiles: CustomStringConvertible {
        var p50 = 0.0
        var p99 = 0.0
        var max = 0.0
        var count = 0

        init(_ samples: [Double]) {
            let sorted = samples.sorted()
            count = sorted.count
            guard !sorted.isEmpty else { return }
            p50 = sorted[(sorted.count - 1) / 2]
            p99 = sorted[Int((Double(sorted.count - 1) * 0.99).rounded())]
            max = sorted[sorted.count - 1]
        }

        var description: String {
            String(
                format: "p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d samples)",
                p50 * 1_000,
                p99 * 1_000,
                max * 1_000,
                count
            )
        }
    }
#endif
