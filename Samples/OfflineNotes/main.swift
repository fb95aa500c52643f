// Offline writes: notes edited while the server is down land in the cache at once and wait in a durable outbox;
// the screen shows "saving…"; the server comes back, the outbox drains in order, and the screen shows "saved".
// Then another device changes a note, the replay of a local edit is refused with 409 Conflict, and a resolver
// merges both. The server runs on loopback; nothing waits on a timer, so the sample exits at once.
import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataNetwork
import StrataOffline

/// A note.
struct Note: Codable, Hashable, Sendable {
    var id: String
    var text: String
}

let server = try await NotesServer.start()
let base = server.baseURL

/// The request for one note.
@Sendable func rule(_ method: HTTPMethod) -> NetworkRequestRule {
    { query in
        guard let query = query as? any KeyedQuery else {
            throw StrataError.queryNotSupported(query, by: NetworkDataSource<Note>.self)
        }
        return HTTPRequest(method, baseURL: base, path: "notes/\(query.key)")
    }
}

let api = NetworkDataSource<Note>(
    client: HTTPClient(),
    requestForGet: rule(.get),
    requestForPut: rule(.put),
    requestForDelete: rule(.delete)
)
// Both sides of a conflict, for the sample to show; a real resolver could ask the user.
let merger = ConflictResolver<Note> { conflict in
    guard let local = conflict.local, let remote = conflict.remote else { return .takeRemote }
    print("  conflict on \(conflict.key): here \"\(local.text)\", server \"\(remote.text)\" -> merge")
    return .merge(Note(id: local.id, text: remote.text + " / " + local.text))
}
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("offline-notes-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: folder) }
let notes = try await OfflineRepository.open(
    main: api,
    cache: MemoryDataSource<Note>(),
    outboxFolder: folder,
    // A minute's backoff: a write joining the queue starts a replay, which sends only writes whose backoff ended, so
    // the writes queued in the tunnel wait for the sync below (the default, 1 s with jitter, could end sooner).
    configuration: .init(
        backoff: RetryPlugin.Backoff(initial: .seconds(60), maximum: .seconds(300), jitter: .none),
        conflictResolver: merger,
        replaysOnTimer: false
    )
)

/// One line for a write's outcome.
func describe(_ status: WriteStatus) -> String {
    switch status {
    case .saved: "saved"
    case .pending(let write): "pending (write #\(write.sequence), attempts \(write.attempts))"
    }
}

print("1. The train enters a tunnel: the server is down.")
server.isDown = true
for (id, text) in [("groceries", "Buy milk"), ("groceries", "Buy milk and eggs"), ("calls", "Call Ada")] {
    let write = try await notes.put(Note(id: id, text: text), in: KeyQuery(id))
    print("  put \(id) \"\(text)\" -> \(describe(write.status))")
}
let read = try await notes.get(KeyQuery("groceries"))
print("  get groceries -> \"\(read.value.text)\"\(read.isPending ? " (pending)" : "")")

var screen = notes.stream(KeyQuery("groceries"), operation: .cache).makeAsyncIterator()
/// Shows the screen's next value.
@MainActor func render() async {
    // The iterator shares its stream: a copy reads on from where the last one stopped.
    var iterator = screen
    defer { screen = iterator }
    var response = await iterator.next(isolation: #isolation)
    while response?.isLoading == true { response = await iterator.next(isolation: #isolation) }
    guard let response, let note = response.value else { return }
    print("  [screen] \(note.text) — \(response.isPending ? "saving…" : "saved")")
}
await render()

print("  outbox:")
for write in await notes.outbox.pendingWrites {
    let error = write.lastError?.contains("HTTP 503") == true ? "HTTP 503" : write.lastError ?? "none yet"
    print("    #\(write.sequence) \(write.operation) \(write.key), attempts \(write.attempts), last error \(error)")
}

print("2. Out of the tunnel: the server is back, and the app syncs.")
server.isDown = false
let report = await notes.sync()
print("  delivered \(report.delivered), remaining \(report.remaining)")
await render()
for write in server.applied {
    let note = try JSONDecoder().decode(Note.self, from: write.body)
    print(
        "  server applied \(write.method) \(write.key) \"\(note.text)\" (Idempotency-Key sent: \(write.idempotencyKey != nil))"
    )
}

print("3. Another device edits the call note while this one is offline again.")
server.setNote(try JSONEncoder().encode(Note(id: "calls", text: "Call Grace")), forKey: "calls")
server.isDown = true
let edit = try await notes.put(Note(id: "calls", text: "Call Ada at 5"), in: KeyQuery("calls"))
print("  put calls \"Call Ada at 5\" -> \(describe(edit.status))")
server.isDown = false
server.scriptConflict(key: "calls")
let resolved = await notes.sync()
print("  delivered \(resolved.delivered), remaining \(resolved.remaining)")
let merged = try await notes.get(KeyQuery("calls"), operation: .cache)
print("  here: \"\(merged.value.text)\"")
let stored = try JSONDecoder().decode(Note.self, from: server.note(forKey: "calls") ?? Data())
print("  server: \"\(stored.text)\"")
print("  duplicates the server refused: \(server.duplicateCount)")

await notes.close()
await server.stop()
print("Done.")
