import Benchmark
import BenchmarkPostgres
import BenchmarkSupport
import Foundation
import Strata

// The PostgreSQL rows: a memory-cache hit through `CacheRepository(main: postgres, cache: memory)` beside a read of
// the same record from PostgreSQL through `PostgresDataSource`, one client and 16 at once. Each benchmark starts a
// private PostgreSQL server in its setup and stops it in its teardown. Without PostgreSQL's binaries nothing is
// registered and the suite says why. Names are "Postgres <row>: <contender>"; `scripts/benchmarks` matches on them.

let benchmarks: @Sendable () -> Void = {
    if let reason = PrivatePostgres.unavailableReason {
        FileHandle.standardError.write(Data("PostgresBenchmarks skipped: \(reason)\n".utf8))
        return
    }
    Benchmark.defaultConfiguration = Settings.configuration(
        metrics: [.wallClock, .throughput],
        maxDuration: .seconds(2)
    )
    let contenders: [(name: String, make: @Sendable (PostgresSession) -> any ProfileReader)] = [
        (
            "CacheRepository memory hit",
            { RepositoryReader(repository: CacheRepository(main: $0.source, cache: $0.warmCache())) }
        ),
        ("PostgresDataSource get", { SourceReader(source: $0.source) }),
    ]
    for (name, make) in contenders {
        registerReads("Postgres read: \(name)", clients: 1, reads: PostgresFixture.reads, make: make)
        registerReads(
            "Postgres 16 clients: \(name)",
            clients: PostgresFixture.clients,
            reads: PostgresFixture.readsPerClient,
            make: make
        )
    }
}

/// Registers a row: each iteration, `clients` tasks at once each read the next `reads` keys of the shuffled order;
/// every record must come back intact.
func registerReads(
    _ name: String,
    clients: Int,
    reads: Int,
    make: @escaping @Sendable (PostgresSession) -> any ProfileReader
) {
    var session: PostgresSession?
    var reader: (any ProfileReader)?
    var cursor = Cursor(order: PostgresFixture.order)
    Benchmark(name) { benchmark in
        guard let reader else { return }
        let positions = cursor.next(clients * reads)
        let intact = await read(reader, positions: positions, clients: clients, reads: reads)
        if intact != positions.count { benchmark.error("\(positions.count - intact) reads failed in \(name)") }
    } setup: {
        let started = try await PostgresSession.start()
        session = started
        reader = make(started)
    } teardown: {
        reader = nil
        await session?.stop()
        session = nil
    }
}

/// `positions` read by `clients` tasks at once, `reads` each (one task: in the caller's task).
func read(_ reader: any ProfileReader, positions: Range<Int>, clients: Int, reads: Int) async -> Int {
    guard clients > 1 else { return await readAll(reader, positions: positions) }
    return await withTaskGroup(of: Int.self) { group in
        for client in 0..<clients {
            let start = positions.lowerBound + client * reads
            group.addTask { await readAll(reader, positions: start..<(start + reads)) }
        }
        return await group.reduce(0, +)
    }
}
