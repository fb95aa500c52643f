import Foundation

/// A unique folder under the system's temporary folder for one test, removed with everything in it when the value is
/// released (or earlier, by ``remove()``), so a failing test leaves nothing behind.
public final class TemporaryFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Makes an empty folder named `prefix` followed by a UUID.
    public init(prefix: String = "strata-tests") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        remove()
    }

    /// Removes the folder and everything in it now.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of a file or folder inside.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }
}
