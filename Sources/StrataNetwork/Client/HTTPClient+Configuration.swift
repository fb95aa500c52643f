import Foundation
import Strata

extension HTTPClient {
    /// The limits and defaults of an ``HTTPClient``.
    public struct Configuration: Sendable {
        /// The largest body accepted, in bytes: 100 MiB by default. Larger responses and downloads fail
        /// with ``Strata/StrataError/Code/tooLarge``.
        public var maximumResponseSize: Int

        /// The idle timeout of requests that do not set their own: 60 seconds by default.
        public var timeout: Duration

        /// Headers added to every request; a request's own headers win.
        public var headers: HTTPHeaders

        /// Where downloads are written: the system's temporary folder by default.
        public var downloadDirectory: URL

        /// The clock for `Retry-After` dates.
        public var clock: any WallClock

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - maximumResponseSize: The largest body accepted, in bytes.
        ///   - timeout: The default idle timeout.
        ///   - headers: Headers added to every request.
        ///   - downloadDirectory: Where downloads are written.
        ///   - clock: The clock for `Retry-After` dates.
        public init(
            maximumResponseSize: Int = 100 * 1024 * 1024,
            timeout: Duration = .seconds(60),
            headers: HTTPHeaders = [:],
            downloadDirectory: URL = FileManager.default.temporaryDirectory,
            clock: any WallClock = SystemClock()
        ) {
            self.maximumResponseSize = maximumResponseSize
            self.timeout = timeout
            self.headers = headers
            self.downloadDirectory = downloadDirectory
            self.clock = clock
        }
    }
}
