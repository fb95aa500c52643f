import Foundation
import Strata

extension StrataError {
    /// The ``Strata/StrataError/Code/network`` error of a request a transport lost, with `urlError` as its underlying
    /// error; ``Strata/StrataError/mayHaveTakenEffect`` when the request may have reached the server
    /// (``Foundation/URLError/Code/mayHaveReachedTheServer``).
    ///
    /// - Parameters:
    ///   - message: What went wrong, naming the request.
    ///   - urlError: The transport's failure, as URLSession gives it.
    ///   - file: The source file creating the error; leave the default.
    ///   - line: The source line creating the error; leave the default.
    package static func transportFailure(
        _ message: String,
        _ urlError: URLError,
        file: String = #fileID,
        line: Int = #line
    ) -> StrataError {
        StrataError(
            .network,
            message,
            underlying: urlError,
            mayHaveTakenEffect: urlError.code.mayHaveReachedTheServer,
            file: file,
            line: line
        )
    }
}

extension URLError.Code {
    /// Whether a request that failed with this code may have reached the server, so that a write may have been carried
    /// out: a timeout, a connection lost or an answer that could not be read — the failures that can come after the
    /// request left. Any other code (no host, no connection, a refused secure connection, a URL that cannot be sent,
    /// and the `unknown` that libcurl and SwiftNIO give for an unreachable network or a failed TLS handshake) is taken
    /// as a request that never left, which keeps a cache's copy as it was (and an app offline its values).
    package var mayHaveReachedTheServer: Bool {
        switch self {
        case .timedOut, .networkConnectionLost, .badServerResponse, .cannotParseResponse, .zeroByteResource,
            .cannotDecodeRawData, .cannotDecodeContentData, .dataLengthExceedsMaximum:
            true
        default:
            false
        }
    }
}
