#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import Strata

    extension AsyncHTTPClientTransport {
        /// The ``Strata/StrataError`` of a failed request: ``Strata/StrataError/Code/cancelled`` when the calling
        /// task was cancelled, a ``Strata/StrataError`` as it is, ``Strata/StrataError/Code/invalidArgument`` for a
        /// client that was shut down (no retry will ever succeed), and anything else (AsyncHTTPClient's and
        /// SwiftNIO's errors) a retryable ``Strata/StrataError/Code/network`` error whose `underlying` is the
        /// `URLError` URLSession would give, with the original error as its `NSUnderlyingErrorKey`.
        static func strataError(from error: any Error, request: String) -> StrataError {
            if Task.isCancelled { return StrataError(.cancelled, "\(request) was cancelled") }
            if let error = error as? StrataError { return error }
            if let error = error as? HTTPClientError, error == .alreadyShutdown {
                // A retryable error here was retried by every retry plugin, and queued for ever by an offline
                // repository, against a client that answers nothing again.
                return StrataError(
                    .invalidArgument,
                    "\(request) was not sent: the transport's AsyncHTTPClient client was shut down",
                    underlying: error
                )
            }
            let code = urlErrorCode(for: error)
            let reason = code == .timedOut ? "timed out" : "failed: \(error)"
            return .transportFailure("\(request) \(reason)", URLError(code, userInfo: [NSUnderlyingErrorKey: error]))
        }

        /// The `URLError` code closest to an AsyncHTTPClient or SwiftNIO error.
        static func urlErrorCode(for error: any Error) -> URLError.Code {
            switch error {
            case let error as HTTPClientError: urlErrorCode(for: error)
            case let error as NIOConnectionError:
                error.connectionErrors.isEmpty && error.dnsAError != nil ? .cannotFindHost : .cannotConnectToHost
            case let error as IOError: urlErrorCode(forErrno: error.errnoCode)
            case is HTTPParserError: .badServerResponse
            case is ChannelError: .networkConnectionLost
            default: .unknown
            }
        }

        private static func urlErrorCode(for error: HTTPClientError) -> URLError.Code {
            switch error {
            case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout,
                .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                .timedOut
            case .remoteConnectionClosed, .uncleanShutdown, .bodyLengthMismatch: .networkConnectionLost
            case .cancelled, .requestStreamCancelled: .cancelled
            case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath: .badURL
            case .redirectLimitReached, .redirectCycleDetected: .httpTooManyRedirects
            default: .unknown
            }
        }

        private static func urlErrorCode(forErrno errno: Int32) -> URLError.Code {
            switch errno {
            case ECONNREFUSED: .cannotConnectToHost
            case ETIMEDOUT: .timedOut
            case ECONNRESET, EPIPE, ECONNABORTED: .networkConnectionLost
            default: .unknown
            }
        }
    }
#endif
