import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataTestSupport
import Testing

/// Fetches decoded to `String`, `Decodable`, a mapper and a closure.
struct BlobCacheDecodingTests {
    struct User: Decodable, Equatable {
        var name: String
    }

    static let routes: [(String, @Sendable (ServerRequest) async throws -> ServerReply)] = [
        ("GET /text", reply("héllo")),
        ("GET /user", reply(#"{"name":"Ada"}"#)),
        ("GET /binary", { _ in ServerReply(status: 200, body: Data([0xFF, 0xFE, 0xC0])) }),
    ]

    @Test func decodesText() async throws {
        try await withFixture(Self.routes) { fixture in
            let cache = try fixture.makeCache()
            let text: String = try await cache.fetch(from: fixture.url("text"))
            #expect(text == "héllo")
        }
    }

    @Test func invalidUTF8IsADataSerializationError() async throws {
        try await withFixture(Self.routes) { fixture in
            let cache = try fixture.makeCache()
            let error = await strataError { _ = try await cache.fetch(from: fixture.url("binary")) as String }
            #expect(error?.code == .dataSerialization)
        }
    }

    /// A URL's user and password never reach an error's message: the blob is named by its URL without them.
    @Test func anErrorNamesTheBlobWithoutTheURLsCredentials() async throws {
        try await withFixture(Self.routes) { fixture in
            let cache = try fixture.makeCache()
            for path in ["binary", "text"] {
                var components = try #require(URLComponents(url: fixture.url(path), resolvingAgainstBaseURL: false))
                components.user = "ada"
                components.password = "hunter2"
                let url = try #require(components.url)

                let error = await strataError {
                    if path == "binary" {
                        _ = try await cache.fetch(from: url) as String
                    } else {
                        _ = try await cache.fetch(from: url, as: User.self)
                    }
                }

                #expect(error?.code == .dataSerialization)
                let message = try #require(error?.message)
                #expect(!message.contains("hunter2") && !message.contains("ada@"), "\(message)")
                #expect(message.contains(fixture.url(path).absoluteString), "\(message)")
            }
        }
    }

    @Test func decodesJSON() async throws {
        try await withFixture(Self.routes) { fixture in
            let cache = try fixture.makeCache()
            #expect(try await cache.fetch(from: fixture.url("user"), as: User.self) == User(name: "Ada"))
            let error = await strataError { _ = try await cache.fetch(from: fixture.url("text"), as: User.self) }
            #expect(error?.code == .dataSerialization)
            // Decoding failures do not touch the cache: one download each.
            #expect(fixture.server.requestCount() == 2)
        }
    }

    @Test func decodesWithAMapperOrAClosure() async throws {
        try await withFixture(Self.routes) { fixture in
            let cache = try fixture.makeCache()
            let user = try await cache.fetch(from: fixture.url("user"), decodingWith: DataToDecodableMapper<User>())
            #expect(user == User(name: "Ada"))
            let count = try await cache.fetch(from: fixture.url("binary")) { $0.count }
            #expect(count == 3)
            let error = await strataError {
                _ = try await cache.fetch(from: fixture.url("binary")) { _ -> Int in
                    throw CocoaError(.coderInvalidValue)
                }
            }
            #expect(error?.code == .dataSerialization)
        }
    }
}
