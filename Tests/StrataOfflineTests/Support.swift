import Foundation
import LoopbackServer
import Strata
import StrataJSONFile
import StrataMemory
import StrataNetwork
import StrataOffline
import StrataTestSupport
import StrataTesting

/// The value the offline tests write.
struct Note: Codable, Hashable, Sendable {
    var id: String
    var text: String
    var version: Int
}

/// A repository over the notes server, a memory cache and an outbox in a fresh folder.
typealias NotesRepository = OfflineRepository<NetworkDataSource<Note>, MemoryDataSource<Note>>

extension NotesServer {
    /// A JSON source for `/notes/<key>` on this server.
    var source: NetworkDataSource<Note> {
        let base = baseURL
        return Self.source { base }
    }

    /// A JSON source for `/notes/<key>` on this server, through `client`.
    func source(client: HTTPClient) -> NetworkDataSource<Note> {
        let base = baseURL
        return Self.source(client: client) { base }
    }

    /// A JSON source for `/notes/<key>` on the server `base` names at each request.
    static func source(
        client: HTTPClient = HTTPClient(),
        base: @escaping @Sendable () -> URL
    ) -> NetworkDataSource<Note> {
        @Sendable func rule(_ method: HTTPMethod) -> NetworkRequestRule {
            { query in
                guard let query = query as? any KeyedQuery else {
                    throw StrataError.queryNotSupported(query, by: NetworkDataSource<Note>.self)
                }
                return HTTPRequest(method, baseURL: base(), path: "notes/\(query.key)")
            }
        }
        return NetworkDataSource(
            client: client,
            requestForGet: rule(.get),
            requestForPut: rule(.put),
            requestForDelete: rule(.delete)
        )
    }

    /// The notes the server applied for `key`, decoded (a delete as `nil`).
    func appliedNotes(forKey key: String) -> [Note?] {
        applied.filter { $0.key == key }.map { try? JSONDecoder().decode(Note.self, from: $0.body) }
    }
}

/// Whether main can be reached: while it cannot, requests go to a port that refuses every connection (no answer
/// at all, as when the network is down: ``Strata/StrataError/Code/network``), otherwise to the notes server.
final class Reachability: Sendable {
    private let refusing: RefusingPort
    private let unreachable = Locked(false)

    init() throws { refusing = try RefusingPort() }

    /// Whether requests meet a refused connection.
    var isUnreachable: Bool {
        get { unreachable.withLock { $0 } }
        set { unreachable.withLock { $0 = newValue } }
    }

    /// A notes source that reaches `server` only while ``isUnreachable`` is `false`.
    func source(_ server: NotesServer) -> NetworkDataSource<Note> {
        let (up, down) = (server.baseURL, refusing.baseURL)
        return NotesServer.source { [self] in isUnreachable ? down : up }
    }
}

/// A fresh temporary folder, removed by the caller.
func temporaryFolder(_ name: String = "outbox") -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("strata-offline-\(UUID().uuidString)")
        .appendingPathComponent(name, isDirectory: true)
}

/// A configuration whose clock stands still (every one at the same date) and whose backoff has no jitter: a failed
/// write waits exactly 1 s, which never ends, so no replay the repository starts by itself (when it opens, when a
/// write joins the queue) sends a queued write meanwhile; `sync()` still sends them all.
func standingStill(coalescing: Bool = false) -> NotesRepository.Configuration {
    NotesRepository.Configuration(
        backoff: RetryPlugin.Backoff(initial: .seconds(1), jitter: .none),
        coalescesWrites: coalescing,
        replaysOnTimer: false,
        clock: ManualClock()
    )
}

/// Queues `notes` in the outbox in `folder` while `server` is down (a repository whose clock stands still, closed
/// again), and leaves the server down.
func queueWhileDown(_ notes: [Note], on server: NotesServer, folder: URL) async throws {
    server.isDown = true
    let repository = try await notesRepository(server, folder: folder, configuration: standingStill())
    for note in notes { try await repository.put(note, in: KeyQuery(note.id)) }
    await repository.close()
}

/// Writes `record` into the records of the outbox in `folder` as another program would, stored under the file
/// of `number` (by default the record's own).
func plant(_ record: PendingWrite, in folder: URL, as number: UInt64? = nil) async throws {
    let records = folder.appendingPathComponent(Outbox.recordsFolderName)
    let store = try JSONFileDataSource<PendingWrite>(folder: records)
    let digits = String(number ?? record.sequence)
    _ = try await store.put(record, in: KeyQuery(String(repeating: "0", count: 20 - digits.count) + digits))
}

extension OfflineRepository.Configuration {
    /// A configuration without a timer, on a clock that stands still: a write main refused (HTTP 503) is sent
    /// again only by a ``StrataOffline/OfflineRepository/sync()``, never first by a replay that the repository's
    /// opening, a new write or a main answer starts as the test goes on (on a running clock, one started late enough
    /// for a short jittered pause to have passed sent it before the sync the test awaited). A write main could not
    /// reach is still sent by the next main answer.
    static var sentBySync: Self {
        Self(
            backoff: RetryPlugin.Backoff(initial: .seconds(60), maximum: .seconds(300), jitter: .none),
            replaysOnTimer: false,
            clock: ManualClock()
        )
    }
}

/// Opens a notes repository on `server` with an outbox in `folder`.
func notesRepository(
    _ server: NotesServer,
    folder: URL,
    reachability: Reachability? = nil,
    configuration: NotesRepository.Configuration = .sentBySync
) async throws -> NotesRepository {
    try await NotesRepository.open(
        main: reachability?.source(server) ?? server.source,
        cache: MemoryDataSource<Note>(),
        outboxFolder: folder,
        configuration: configuration
    )
}

/// Waits for the next change `stream` announces, after `action`.
func awaitChange(in stream: AsyncStream<DataChange>, after action: () async -> Void) async {
    var iterator = stream.makeAsyncIterator()
    await action()
    _ = await iterator.next()
}

/// Runs `body` with a notes server and a repository over it (its outbox in a fresh folder, where `planted` records
/// are written first, as another program would), then closes both and removes the folder.
func withNotes(
    reachability: Reachability? = nil,
    configuration: NotesRepository.Configuration = .sentBySync,
    plantingFirst planted: [PendingWrite] = [],
    _ body: (NotesServer, NotesRepository) async throws -> Void
) async throws {
    let server = try await NotesServer.start()
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    for record in planted { try await plant(record, in: folder) }
    let notes = try await notesRepository(
        server,
        folder: folder,
        reachability: reachability,
        configuration: configuration
    )
    do {
        try await body(server, notes)
    } catch {
        await notes.close()
        await server.stop()
        throw error
    }
    await notes.close()
    await server.stop()
}

/// The file of record `sequence` in the outbox in `folder` (the one that holds its store key), or `nil`.
func recordFile(_ sequence: UInt64, in folder: URL) -> URL? {
    let digits = String(sequence)
    let key = "\"" + String(repeating: "0", count: 20 - digits.count) + digits + "\""
    let entries = folder.appendingPathComponent(Outbox.recordsFolderName).appendingPathComponent("entries")
    let files = FileManager.default.enumerator(at: entries, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }
    return files?.first { file in
        file.pathExtension == "json" && (try? String(contentsOf: file, encoding: .utf8))?.contains(key) == true
    }
}

/// A memory source whose put of a note with the text `held` waits until ``release`` opens, once it has said so
/// through ``arrived``: a cache, or a main, with a write held on its way in. A put of the text `stalls` says so too,
/// then waits until its task is cancelled, and throws `CancellationError`. One made ``holdingDeletes`` holds each
/// delete so, and then throws `CancellationError` when its task was cancelled meanwhile: a cache that honours
/// cancellation.
final class HeldSource: DataSource {
    let memory = MemoryDataSource<Note>()
    let arrived = Gate()
    let release = Gate()
    let holdsDeletes: Bool

    init(holdingDeletes: Bool = false) { holdsDeletes = holdingDeletes }

    func get(_ query: any Query) async throws -> Note { try await memory.get(query) }
    func getAll(_ query: any Query) async throws -> [Note] { try await memory.getAll(query) }
    func put(_ value: Note, in query: any Query) async throws -> Note {
        if value.text == "held" {
            arrived.open()
            await release.wait()
        }
        if value.text == "stalls" {
            arrived.open()
            try await waitUntilCancelled()
        }
        return try await memory.put(value, in: query)
    }
    func putAll(_ values: [Note], in query: any Query) async throws -> [Note] {
        try await memory.putAll(values, in: query)
    }
    func delete(_ query: any Query) async throws {
        if holdsDeletes {
            arrived.open()
            await release.wait()
            try Task.checkCancellation()
        }
        try await memory.delete(query)
    }
}

/// Runs `body` with a notes server and a repository over it whose cache is a ``HeldSource`` (holding deletes when
/// `holdingDeletes`), its outbox in a fresh folder, then closes both (opening the cache's ``HeldSource/release``
/// first when `body` throws) and removes the folder.
func withHeldCache(
    _ configuration: OfflineRepository<NetworkDataSource<Note>, HeldSource>.Configuration = .sentBySync,
    holdingDeletes: Bool = false,
    _ body: (NotesServer, OfflineRepository<NetworkDataSource<Note>, HeldSource>, HeldSource) async throws -> Void
) async throws {
    let server = try await NotesServer.start()
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let cache = HeldSource(holdingDeletes: holdingDeletes)
    let notes = try await OfflineRepository.open(
        main: server.source,
        cache: cache,
        outboxFolder: folder,
        configuration: configuration
    )
    do {
        try await body(server, notes, cache)
    } catch {
        cache.release.open()
        await notes.close()
        await server.stop()
        throw error
    }
    await notes.close()
    await server.stop()
}

/// A main over a memory store whose every write first runs `beforeWrite`, which may wait, fail, count or move a clock.
final class ScriptedMain: DataSource {
    let memory = MemoryDataSource<Note>()
    private let beforeWrite: @Sendable () async throws -> Void

    init(beforeWrite: @escaping @Sendable () async throws -> Void) { self.beforeWrite = beforeWrite }

    func get(_ query: any Query) async throws -> Note { try await memory.get(query) }
    func getAll(_ query: any Query) async throws -> [Note] { try await memory.getAll(query) }
    func put(_ value: Note, in query: any Query) async throws -> Note {
        try await beforeWrite()
        return try await memory.put(value, in: query)
    }
    func putAll(_ values: [Note], in query: any Query) async throws -> [Note] {
        try await beforeWrite()
        return try await memory.putAll(values, in: query)
    }
    func delete(_ query: any Query) async throws { try await memory.delete(query) }
}
