import Foundation

/// A finished download: a temporary file with the response's status and headers.
///
/// The file is the caller's: move it into a store or delete it.
public struct DownloadedFile: Hashable, Sendable {
    /// Where the body was written.
    public var fileURL: URL

    /// The status code of the response.
    public var status: Int

    /// The headers of the response (for `ETag`, `Cache-Control`, …).
    public var headers: HTTPHeaders

    /// The number of bytes in the file.
    public var byteCount: Int64

    /// Creates a value.
    ///
    /// - Parameters:
    ///   - fileURL: The file.
    ///   - status: The status code.
    ///   - headers: The response headers.
    ///   - byteCount: The size of the file.
    public init(fileURL: URL, status: Int, headers: HTTPHeaders, byteCount: Int64) {
        self.fileURL = fileURL
        self.status = status
        self.headers = headers
        self.byteCount = byteCount
    }

    /// The response without its body, for the caching helpers (``HTTPResponse/cacheControl``, …).
    public var response: HTTPResponse { HTTPResponse(status: status, headers: headers) }
}
