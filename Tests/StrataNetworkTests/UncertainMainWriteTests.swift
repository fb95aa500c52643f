import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// A `.mainSync` put whose request to a real server on 127.0.0.1 fails: when the server may have carried it out (the
/// request timed out after it was sent, the server failed inside), the cache's older copy goes, so no read serves it in
/// place of main's new value; when the server surely did not (it refused the write, it was not there), the copy stays.
struct UncertainMainWriteTests {
    /// How main's write ends, and whether it may have taken effect.
    enum Ending: String, CaseIterable, Sendable {
        case timedOut, status500, status502, status504, status422, status503, status409, refused
        /// A `200` whose body does not decode: the server took the write.
        case garbledAnswer

        var mayHaveTakenEffect: Bool {
            [.timedOut, .status500, .status502, .status504, .garbledAnswer].contains(self)
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: Ending.allCases)
    func theCachesCopyGoesOnlyWhenMainMayHaveTheWrite(ending: Ending) async throws {
        // Given a server whose PUT ends this way, and a cache holding the key's older value
        let release = Gate()
        let server = try await LoopbackServer.start([
            (
                "PUT /items/held",
                { _ in
                    await release.wait()
                    return ServerReply(status: 200, body: Data(#"{"name":"late"}"#.utf8))
                }
            ),
            ("PUT /items/500", { _ in ServerReply(status: 500) }),
            ("PUT /items/502", { _ in ServerReply(status: 502) }),
            ("PUT /items/504", { _ in ServerReply(status: 504) }),
            ("PUT /items/422", { _ in ServerReply(status: 422) }),
            ("PUT /items/503", { _ in ServerReply(status: 503) }),
            ("PUT /items/409", { _ in ServerReply(status: 409) }),
            ("PUT /items/garbled", { _ in ServerReply(status: 200, body: Data("not json".utf8)) }),
        ])
        defer {
            release.open()
            Task { await server.stop() }
        }
        // For `.refused`, a port bound and never listened on (no other test's server can get it): the connection is
        // refused, the request never sent.
        let refusing = try RefusingPort()
        let baseURL = ending == .refused ? refusing.baseURL : server.baseURL
        let path =
            switch ending {
            case .timedOut, .refused: "items/held"
            case .garbledAnswer: "items/garbled"
            default: "items/\(ending.rawValue.dropFirst("status".count))"
            }
        // (a short deadline only for the request held at the server)
        let client = makeClient(timeout: ending == .timedOut ? .milliseconds(300) : .seconds(30))
        let main = NetworkDataSource<Item>(
            client: client,
            requestForGet: { _ in HTTPRequest(.get, baseURL: baseURL, path: path) },
            requestForPut: { _ in HTTPRequest(.put, baseURL: baseURL, path: path) },
            requestForDelete: { _ in HTTPRequest(.delete, baseURL: baseURL, path: path) }
        )
        let cache = MemoryDataSource<Item>()
        cache.setValue(Item(name: "old"), forKey: "item")
        let repository = CacheRepository(main: main, cache: cache)

        // When the app writes the new value through main
        let error = await strataError {
            _ = try await repository.put(Item(name: "new"), in: KeyQuery("item"), operation: .mainSync)
        }

        // Then the write fails; the error says whether main may have it, and the cache's copy goes only then
        #expect(error != nil)
        #expect(error?.mayHaveTakenEffect == ending.mayHaveTakenEffect, "\(String(describing: error))")
        #expect((cache.value(forKey: "item") == nil) == ending.mayHaveTakenEffect)
    }

    /// The word of a source of an app's own, and of a Strata error that wraps it.
    @Test func anErrorSaysWhatItsCauseSaid() {
        var cause = StrataError(.network, "The call timed out after the request was sent")
        #expect(!cause.mayHaveTakenEffect)
        cause.mayHaveTakenEffect = true
        let wrapped = StrataError(.cacheSyncFailed, "Storing failed", underlying: cause)
        #expect(cause.mayHaveTakenEffect && wrapped.mayHaveTakenEffect)
        #expect(!StrataError(.network, "offline", underlying: URLError(.timedOut)).mayHaveTakenEffect)
    }
}
