import Foundation
import Strata

extension HTTPClient {
    /// The limits and defaults of an ``HTTPClient``.
    public struct Configuration: Sendable {
        /// The largest body accepted, in bytes: 100 MiB by default. Larger responses and downloads fail
        /// with ``Strata/StrataError/Code/tooLarge``. It limits 2xx bodies: of any other status the client reads
        /// the first ``HTTPFailure/bodyPrefixLimit`` bytes only (with Strata's transports), so a large error page
        /// is still its status's error, `Retry-After` included.
        public var maximumResponseSize: Int

        /// The idle timeout of requests that do not set their own: a request fails when no byte moves, either
        /// way, for this long. 60 seconds by default (``defaultTimeout``).
        ///
        /// Strata enforces it itself, to the millisecond (see ``URLSessionTransport``); the error is a
        /// retryable ``Strata/StrataError/Code/network`` whose message names the idle timeout. It must be above
        /// zero: a request sent with none is refused (``Strata/StrataError/Code/invalidArgument``).
        public var timeout: Duration

        /// The total deadline of requests that do not set their own: a request fails when it has not finished,
        /// body included, this long after it started, however steadily bytes arrive. 10 minutes by default
        /// (``defaultTotalTimeout``): long enough for a body at the default size limit over a link of about
        /// 1.4 Mbit/s; raise it for larger or slower downloads.
        ///
        /// Strata enforces it itself, to the millisecond; the error is a retryable
        /// ``Strata/StrataError/Code/network`` whose message names the total deadline. It must be above zero, as
        /// ``timeout``.
        public var totalTimeout: Duration

        /// Headers added to every request; a request's own headers win.
        public var headers: HTTPHeaders

        /// Where downloads are written: the system's temporary folder by default.
        public var downloadDirectory: URL

        /// The clock for `Retry-After` dates.
        public var clock: any WallClock

        /// The default idle timeout: 60 seconds.
        public static let defaultTimeout = Duration.seconds(60)

        /// The default total deadline: 10 minutes.
        public static let defaultTotalTimeout = Duration.seconds(600)

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - maximumResponseSize: The largest body accepted, in bytes.
        ///   - timeout: The default idle timeout.
        ///   - totalTimeout: The default total deadline.
        ///   - headers: Headers added to every request.
        ///   - downloadDirectory: Where downloads are written.
        ///   - clock: The clock for `Retry-After` dates.
        public init(
            maximumResponseSize: Int = 100 * 1024 * 1024,
            timeout: Duration = defaultTimeout,
            totalTimeout: Duration = defaultTotalTimeout,
            headers: HTTPHeaders = [:],
            downloadDirectory: URL = FileManager.default.temporaryDirectory,
            clock: any WallClock = SystemClock()
        ) {
            self.maximumResponseSize = maximumResponseSize
            self.timeout = timeout
            self.totalTimeout = totalTimeout
            self.headers = headers
            self.downloadDirectory = downloadDirectory
            self.clock = clock
        }
    }
}
