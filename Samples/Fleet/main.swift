// Fleet: three instances of a small HTTP service, each a process with its own memory cache in front of one
// PostgreSQL, a writer, and a checker that reads all the while and counts every stale value served after the
// invalidation window. It prints how long a write's invalidation takes to reach the other processes' caches.
//
//     swift run --traits Postgres Fleet [writes] [window-ms]
#if Postgres
    import Foundation

    let arguments = Array(CommandLine.arguments.dropFirst())
    do {
        if arguments.first == "instance", arguments.count == 2, let port = Int(arguments[1]) {
            try await FleetInstance.run(postgresPort: port)
        } else {
            let writes = arguments.first.flatMap(Int.init) ?? 10_000
            let window = arguments.dropFirst().first.flatMap(Int.init) ?? 50
            try await FleetCoordinator(writes: writes, windowMilliseconds: window).run()
        }
    } catch {
        print("Fleet failed: \(error)")
        exit(1)
    }
#else
    print("Fleet needs the package trait Postgres: swift run --traits Postgres Fleet")
#endif
