import Foundation
import Strata

/// The details of an HTTP response that became an error: the ``Strata/StrataError/underlying`` value of
/// every error ``HTTPClient`` maps from a status.
///
/// ```swift
/// catch let error as StrataError where error.code == .notModified {
///     let headers = error.httpFailure?.headers   // fresh Cache-Control, ETag…
/// }
/// ```
public struct HTTPFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The status code.
    public var status: Int

    /// The response headers.
    public var headers: HTTPHeaders

    /// At most the first ``HTTPFailure/bodyPrefixLimit`` bytes of the body.
    public var bodyPrefix: Data

    /// The request, as `METHOD URL`.
    public var request: String

    /// The most body bytes kept in ``bodyPrefix`` and shown in messages: 512.
    public static let bodyPrefixLimit = 512

    /// Creates a value; the body is cut to ``bodyPrefixLimit`` bytes.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The response headers.
    ///   - body: The body, or its beginning.
    ///   - request: The request, as `METHOD URL`.
    public init(status: Int, headers: HTTPHeaders, body: Data, request: String) {
        self.status = status
        self.headers = headers
        self.bodyPrefix = Data(body.prefix(Self.bodyPrefixLimit))
        self.request = request
    }

    /// The body prefix as text, invalid UTF-8 replaced.
    public var bodyText: String { String(decoding: bodyPrefix, as: UTF8.self) }

    /// `HTTP <status> for <request>`, then the body prefix if any.
    public var description: String {
        bodyPrefix.isEmpty ? "HTTP \(status) for \(request)" : "HTTP \(status) for \(request): \(bodyText)"
    }
}

extension StrataError {
    /// The HTTP details of an error ``StrataNetwork/HTTPClient`` mapped from a status, or `nil`.
    public var httpFailure: HTTPFailure? { underlying as? HTTPFailure }
}
