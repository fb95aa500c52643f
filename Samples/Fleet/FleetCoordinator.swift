#if Postgres
    import Foundation
    import PostgresNIO
    import PrivatePostgres
    import Strata
    import StrataPostgres

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Starts PostgreSQL and three instances, writes `writes` times while a checker reads from every instance, then
    /// prints the commit-to-invalidation latency and the stale reads seen after the window.
    struct FleetCoordinator {
        let writes: Int
        let windowMilliseconds: Int
        let keys = 100
        let instanceCount = 3

        func run() async throws {
            let server = try await PrivatePostgres.start(durable: true)
            var instances: [Process] = []
            do {
                var urls: [URL] = []
                for _ in 0..<instanceCount {
                    let (process, url) = try startInstance(postgresPort: server.port)
                    instances.append(process)
                    urls.append(url)
                }
                try await measure(postgresPort: server.port, instances: urls)
            } catch {
                print("Fleet: \(error)")
            }
            for process in instances { process.terminate() }
            for process in instances { process.waitUntilExit() }
            await server.stop()
        }

        /// Starts `Fleet instance <port>` and waits for its `listening <url>` line.
        private func startInstance(postgresPort: Int) throws -> (Process, URL) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["instance", "\(postgresPort)"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            var line = Data()
            while true {
                // The throwing read: `readData(ofLength:)` ends the process when the read fails.
                guard let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty else {
                    throw FleetError(message: "an instance ended before listening")
                }
                if byte == Data("\n".utf8) { break }
                line.append(byte)
            }
            let text = String(decoding: line, as: UTF8.self)
            guard text.hasPrefix("listening "), let url = URL(string: String(text.dropFirst("listening ".count))) else {
                throw FleetError(message: "an instance said \(text.debugDescription)")
            }
            return (process, url)
        }

        private func measure(postgresPort: Int, instances: [URL]) async throws {
            let client = fleetClient(port: postgresPort)
            let writer = try PostgresDataSource<Reading>(client: client, table: "fleet")
            let log = WriteLog()
            let checker = StaleChecker(window: Double(windowMilliseconds) / 1_000, log: log)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                let started = wallClock()
                try await withThrowingTaskGroup(of: Void.self) { checkers in
                    for url in instances {
                        checkers.addTask { try await checker.check(url, keys: keys) }
                    }
                    for sequence in 0..<writes {
                        let key = "k\(sequence % keys)"
                        let sent = wallClock()
                        _ = try await writer.put(Reading(sequence: sequence), in: KeyQuery(key))
                        log.record(FleetWrite(key: key, sequence: sequence, sent: sent, acknowledged: wallClock()))
                    }
                    // Reads go on for one more window, so the last writes are checked too.
                    try await Task.sleep(for: .milliseconds(windowMilliseconds * 2))
                    log.finish()
                    try await checkers.waitForAll()
                }
                let elapsed = wallClock() - started
                var drops: [[FleetDrop]] = []
                for url in instances {
                    let (data, _) = try await URLSession.shared.data(from: url.appendingPathComponent("drops"))
                    drops.append(try JSONDecoder().decode([FleetDrop].self, from: data))
                }
                report(FleetLatencies(writes: log.writes, drops: drops), checker: checker, elapsed: elapsed)
            }
        }

        private func report(_ latencies: FleetLatencies, checker: StaleChecker, elapsed: Double) {
            let counts = checker.counts
            print(
                "Fleet: \(writes) writes to \(keys) keys, \(instanceCount) instance processes, one PostgreSQL (fsync on)"
            )
            print(String(format: "  %.1f s, %.0f writes/s", elapsed, Double(writes) / elapsed))
            print("  commit acknowledged -> dropped from another instance's cache: \(latencies.fromAcknowledged)")
            print("  write sent -> dropped from another instance's cache:           \(latencies.fromSent)")
            print("  invalidations missing: \(latencies.missing) of \(writes * instanceCount)")
            print(
                "  checker: \(counts.reads) reads, \(counts.stale) stale after the \(windowMilliseconds) ms window"
                    + " (\(counts.staleInsideWindow) older values inside it)"
            )
        }
    }

    /// Why the fleet could not run.
    struct FleetError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
#endif
