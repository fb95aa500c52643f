import Foundation
import Strata
import StrataNetwork
import StrataTestSupport

/// The shared temporary folder, removed when released (or by `remove()`).
typealias TemporaryFolder = StrataTestSupport.TemporaryFolder

extension TemporaryFolder {
    convenience init() throws {
        try self.init(prefix: "strata-network-tests")
    }

    /// The names of the files in the folder.
    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path)
    }
}

/// A client with short timeouts so that no test can hang for long.
func makeClient(
    _ transport: any HTTPTransport = URLSessionTransport(),
    maximumResponseSize: Int = 100 * 1024 * 1024,
    timeout: Duration = .seconds(30),
    downloadDirectory: URL = FileManager.default.temporaryDirectory
) -> HTTPClient {
    HTTPClient(
        transport: transport,
        configuration: HTTPClient.Configuration(
            maximumResponseSize: maximumResponseSize,
            timeout: timeout,
            downloadDirectory: downloadDirectory
        )
    )
}
