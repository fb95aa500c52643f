import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import Foundation
import StrataAsyncHTTPClient
import StrataNetwork

// Context for the cold rows: the same cold fetches with `AsyncHTTPClientTransport` as the cache's transport (what
// the `AsyncHTTPClient` trait offers a server on Linux), and what a bare AsyncHTTPClient fetch of the same URLs
// costs. Names are "BlobCache cold fetch on AsyncHTTPClient: <contender>".

/// Registers the rows: Strata's fetch with writes before returning and behind, and AsyncHTTPClient's own `execute`.
func registerColdFetchesOnAsyncHTTPClient() {
    let row = "BlobCache cold fetch on AsyncHTTPClient"
    registerColdFetch("\(row): Strata fetch", path: "ahc-before", writes: .beforeReturning) {
        AsyncHTTPClientTransport()
    }
    registerColdFetch("\(row): Strata fetch, writes behind", path: "ahc-behind", writes: .behind) {
        AsyncHTTPClientTransport()
    }
    registerBareAsyncHTTPClientFetch()
}

/// The baseline a server would write by hand with AsyncHTTPClient: `execute` of a new URL, the body collected up to
/// `HTTPClient`'s default limit (100 MiB), on a client made with the transport's default configuration.
func registerBareAsyncHTTPClientFetch() {
    var client: AsyncHTTPClient.HTTPClient?
    var server: BlobServer?
    var next = 0
    Benchmark("BlobCache cold fetch on AsyncHTTPClient: AsyncHTTPClient execute") { benchmark in
        guard let client, let server else { return }
        for _ in 0..<CacheBatch.coldFetches {
            let request = HTTPClientRequest(url: server.url("blob/ahc-bare-\(next)").absoluteString)
            next += 1
            let response = try await client.execute(request, timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 100 << 20)
            if body.readableBytes != BlobFixture.size { benchmark.error("short download") }
        }
    } setup: {
        server = try await BlobFixture.server.value
        client = AsyncHTTPClient.HTTPClient(configuration: AsyncHTTPClientTransport.defaultConfiguration)
    } teardown: {
        try await client?.shutdown()
        client = nil
    }
}
