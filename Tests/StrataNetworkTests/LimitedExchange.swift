import Foundation
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// What a transport made of one request under a body limit, asked as a data request or as a download: the shared
/// steps of the tests that hold hostile bodies to the limit.
struct LimitedExchange {
    /// How the body is asked for.
    enum Form: String, CaseIterable, Sendable {
        /// `HTTPClient.send`: the body in memory.
        case data
        /// `HTTPClient.download`: the body in a file of a fresh folder.
        case download
    }

    /// The error the request ended with, or `nil`.
    let error: StrataError?
    /// The body's length when it succeeded: bytes in memory, or the downloaded file's size.
    let bodyCount: Int?
    /// The most body bytes the transport held at once.
    let peakBodyBytes: Int
    /// The files left in the download folder (always 0 for a data request).
    let filesLeft: Int

    /// Asks `url` once, in `form`, on a new transport of `kind` with a client limited to `limit` body bytes.
    static func run(
        _ form: Form,
        url: URL,
        transport kind: TransportUnderTest,
        limit: Int
    ) async throws -> LimitedExchange {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let transport = kind.make()
        let client = HTTPClient(
            transport: transport,
            configuration: .init(maximumResponseSize: limit, downloadDirectory: folder.url)
        )
        var bodyCount: Int?
        let error = await strataError {
            switch form {
            case .data: bodyCount = try await client.send(HTTPRequest(url: url)).body.count
            case .download: bodyCount = Int(try await client.download(HTTPRequest(url: url)).byteCount)
            }
        }
        return LimitedExchange(
            error: error,
            bodyCount: bodyCount,
            peakBodyBytes: transport.peakBodyBytes,
            filesLeft: try folder.contents().count
        )
    }
}
