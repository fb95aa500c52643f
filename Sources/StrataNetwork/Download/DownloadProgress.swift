/// How far a download has come.
///
/// When the server sent a `Content-Length`, ``fractionCompleted`` runs from 0 to 1; otherwise only
/// ``bytesReceived`` grows, and the last event of a finished download reports 1.
public struct DownloadProgress: Hashable, Sendable {
    /// The bytes written to the file so far.
    public var bytesReceived: Int64

    /// The expected size from `Content-Length`, or `nil` when the server did not say.
    public var expectedBytes: Int64?

    /// Creates a progress value.
    ///
    /// - Parameters:
    ///   - bytesReceived: The bytes received so far.
    ///   - expectedBytes: The expected total, if known.
    public init(bytesReceived: Int64, expectedBytes: Int64?) {
        self.bytesReceived = bytesReceived
        self.expectedBytes = expectedBytes
    }

    /// The share done, from 0 to 1, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes else { return nil }
        guard expectedBytes > 0 else { return 1 }
        return min(1, Double(bytesReceived) / Double(expectedBytes))
    }
}
