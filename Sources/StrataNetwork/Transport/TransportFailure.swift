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
        var error = StrataError(.network, message, underlying: urlError, file: file, line: line)
        error.mayHaveTakenEffect = urlError.code.mayHaveReachedTheServer
        return error
    }
}

extension URLError.Code {
    /// Whether a request that failed with this code may have reached the server, so that a write may have been carried
    /// out: all but the failures that prove it never left (no host, no connection, no network, a refused secure
    /// connection, a URL that cannot be sent).
    package var mayHaveReachedTheServer: Bool {
        switch self {
        case .badURL, .unsupportedURL, .cannotFindHost, .dnsLookupFailed, .cannotConnectToHost,
            .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed, .callIsActive,
            .appTransportSecurityRequiresSecureConnection, .secureConnectionFailed, .serverCertificateHasBadDate,
            .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid,
            .clientCertificateRejected, .clientCertificateRequired:
            false
        default:
            true
        }
    }
}
