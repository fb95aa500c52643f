import Foundation

/// Where a transport puts a response body: in memory, as ``HTTPTransport/send(_:maximumBodySize:)`` asks; in memory
/// for a 2xx and as an error's first bytes otherwise, as ``HTTPClient`` asks; or in a file as it arrives, with
/// progress, as ``HTTPTransport/download(_:to:maximumBodySize:progress:)`` asks.
package enum HTTPBodyDestination: Sendable {
    /// In memory, up to the request's limit.
    case memory
    /// In memory for a 2xx response, up to the request's limit; of any other status only the first
    /// ``HTTPFailure/bodyPrefixLimit`` bytes, the rest read and dropped when it is announced as short
    /// (``HTTPExchange/drainsErrorBody(announced:received:)``) and not read otherwise: what ``HTTPClient`` reads of a response
    /// it turns into an error, so a large or endless error page is neither `tooLarge` nor waited for.
    case successInMemory
    /// In the file, created only for a 2xx response; `progress` is called as bytes arrive.
    case file(URL, progress: @Sendable (DownloadProgress) -> Void)

    /// The file a download writes; `nil` for a body in memory.
    package var file: URL? {
        if case .file(let url, _) = self { url } else { nil }
    }

    /// What a download reports its progress to; `nil` for a body in memory.
    package var progress: (@Sendable (DownloadProgress) -> Void)? {
        if case .file(_, let progress) = self { progress } else { nil }
    }
}
