// A child process for the offline-write crash tests: writes notes through an outbox to the notes server its
// test runs (which goes up and down), and reports each write before (`ISSUE <n>`) and after (`ACK <n>`) it; the
// test kills it with SIGKILL at random moments.
//
// Usage: StrataOfflineCrashWriter <outbox folder> <server URL> <first write> <keys> write|drain
//
// `write` writes notes `first`, `first + 1`, … to key `k<n % keys>` until killed; after every third write it
// reads the key `ping` (which the server holds and nobody writes) from main, and prints `READ` when main
// answered: a read that replays the outbox when writes wait in it. `drain` replays the outbox until it is
// empty, prints `DRAINED`, and exits.
import Foundation
import Strata
import StrataMemory
import StrataNetwork
import StrataOffline

/// The value written: its number is its version.
struct Note: Codable, Hashable, Sendable {
    var id: String
    var text: String
    var version: Int
}

/// Writes one line to standard output at once (no buffer survives a SIGKILL).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Fails with a message on standard error.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 6, let base = URL(string: arguments[2]), let first = Int(arguments[3]),
    let keys = Int(arguments[4]), keys > 0
else { fail("usage: StrataOfflineCrashWriter <folder> <url> <first> <keys> write|drain") }

@Sendable func rule(_ method: HTTPMethod) -> NetworkRequestRule {
    { query in
        guard let query = query as? any KeyedQuery else {
            throw StrataError.queryNotSupported(query, by: NetworkDataSource<Note>.self)
        }
        return HTTPRequest(method, baseURL: base, path: "notes/\(query.key)")
    }
}

let main = NetworkDataSource<Note>(
    client: HTTPClient(),
    requestForGet: rule(.get),
    requestForPut: rule(.put),
    requestForDelete: rule(.delete)
)
let notes: OfflineRepository<NetworkDataSource<Note>, MemoryDataSource<Note>>
do {
    notes = try await OfflineRepository.open(
        main: main,
        cache: MemoryDataSource<Note>(),
        outboxFolder: URL(fileURLWithPath: arguments[1], isDirectory: true),
        configuration: .init(backoff: RetryPlugin.Backoff(initial: .milliseconds(20), maximum: .milliseconds(100)))
    )
} catch {
    fail("cannot open the outbox: \(error)")
}
say("READY")

if arguments[5] == "drain" {
    for _ in 0..<2_000 {
        let report = await notes.sync()
        if report.setAside > 0 { fail("set aside: \(await notes.outbox.pendingWrites.filter(\.isSetAside))") }
        if report.remaining == 0 {
            say("DRAINED")
            exit(0)
        }
        try? await Task.sleep(for: .milliseconds(10))
    }
    fail("the outbox did not drain")
}

var number = first
while true {
    let key = "k\(number % keys)"
    say("ISSUE \(number)")
    do {
        try await notes.put(Note(id: key, text: "v\(number)", version: number), in: KeyQuery(key))
    } catch {
        fail("write \(number) failed: \(error)")
    }
    say("ACK \(number)")
    if number % 3 == 2 {
        if (try? await notes.get(KeyQuery("ping"), operation: .main)) != nil { say("READ") }
    }
    number += 1
}
