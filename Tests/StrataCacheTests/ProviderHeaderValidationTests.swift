import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataNetwork
import StrataTestSupport
import Testing

/// A `CacheProvider`'s `headerValues` reach the wire only when they are valid: a CR/LF in a name or a value
/// fails the download with `invalidArgument`, and the server receives nothing.
struct ProviderHeaderValidationTests {
    @Test(
        "Injected provider headers fail the download before any request",
        arguments: [
            ["If-None-Match\r\nInjected": "\"v1\""],
            ["If-None-Match": "\"v1\"\r\nInjected: yes"],
            ["X-Trace\n": "1"],
        ]
    )
    func injectedHeadersAreRefused(headers: [String: String]) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 100), eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let provider = ScriptedProvider(cachePolicy: .alwaysFetchWithCustomHeader, folder: folder.url, headers: headers)
        let transport = TestTransport()
        let service = try assetDownload(from: server, through: provider, folder: folder, transport: transport)

        let error = await strataError { _ = try await service.downloadAsync() }

        #expect(error?.code == .invalidArgument, "\(String(describing: error))")
        #expect(transport.requests.isEmpty)
        #expect(server.requestCount() == 0)
        #expect(provider.recorded.store.isEmpty)
        #expect(folder.contents("downloads").isEmpty)
    }
}
