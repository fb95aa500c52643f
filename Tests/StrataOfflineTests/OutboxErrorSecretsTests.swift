import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataNetwork
import StrataOffline
import StrataTestSupport
import StrataTesting
import Testing

/// What the outbox keeps on disk of a failed replay's error names it — its code, its message — without the secrets it
/// may carry: a token in the URL's query, a password in its user part, the server's body.
struct OutboxErrorSecretsTests {
    static let token = "tok-3f9a1c-secret"
    static let password = "pw-77e2b-secret"
    static let marker = "BODY-MARKER-51d0"

    @Test(.timeLimit(.minutes(1)), arguments: [503, 422])
    func aFailedReplayKeepsNoTokenAndNoBodyOnDisk(status: Int) async throws {
        // Given a server that refuses every write with a body holding a marker — the first for a while (503), the
        // next with `status` — and a source whose URLs carry a token in their query and a password in their user part
        let server = try await LoopbackServer.start([
            (
                "PUT /notes/*",
                numberedRoute { number in
                    ServerReply(status: number == 1 ? 503 : status, body: Data("{\"error\":\"\(Self.marker)\"}".utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let port = try #require(server.baseURL.port)
        let base = try #require(URL(string: "http://ann:\(Self.password)@127.0.0.1:\(port)"))
        @Sendable func rule(_ method: HTTPMethod) -> NetworkRequestRule {
            { query in
                let key = (query as? any KeyedQuery)?.key ?? ""
                return HTTPRequest(
                    method,
                    baseURL: base,
                    path: "notes/\(key)",
                    queryItems: [URLQueryItem(name: "access_token", value: Self.token)]
                )
            }
        }
        let main = NetworkDataSource<Note>(
            client: HTTPClient(),
            requestForGet: rule(.get),
            requestForPut: rule(.put),
            requestForDelete: rule(.delete)
        )
        let notes = try await NotesRepository.open(
            main: main,
            cache: MemoryDataSource<Note>(),
            outboxFolder: folder,
            configuration: .sentBySync
        )

        // When a write is replayed and the server refuses it, for a while or (422) for good: it is set aside
        let pending = try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
        #expect(pending.isPending)
        await poll { server.requestCount() >= 1 }
        let report = await notes.sync()
        #expect(report.setAside == (status == 422 ? 1 : 0))
        let record = try #require(await notes.outbox.pendingWrites.first)
        await notes.close()

        // Then the outbox's files keep the error's code and message, and neither the token, the password nor the body
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        var bytes = Data()
        for case let file as URL in files
        where (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            bytes.append(try Data(contentsOf: file))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("StrataError.unexpectedResponse"), "\(text)")
        #expect(text.contains("HTTP \(status)"), "\(text)")
        #expect(!text.contains(Self.token))
        #expect(!text.contains(Self.password))
        #expect(!text.contains(Self.marker))
        #expect(record.lastError?.contains("/notes/a") == true, "\(String(describing: record.lastError))")
    }
}
