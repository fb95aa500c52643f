/// An event of ``HTTPClient/downloads(_:)``: progress, then the finished file.
public enum DownloadEvent: Hashable, Sendable {
    /// Bytes arrived.
    case progress(DownloadProgress)
    /// The download is complete; this is the last event.
    case finished(DownloadedFile)
}
