import Foundation
import Testing

/// A unique folder under the system's temporary folder for one test, removed with everything in it when the value is
/// released (or earlier, by ``remove()``), so a failing test leaves nothing behind.
public final class TemporaryFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Makes an empty folder named `prefix`, the running test's name (its first 40 letters and digits) and a UUID,
    /// so a folder left behind names the test that made it, in `base` (the system's temporary folder by default).
    public init(prefix: String = "strata-tests", in base: URL = FileManager.default.temporaryDirectory) throws {
        let test = Test.current.map {
            "-" + String($0.name.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.prefix(40))
        }
        url =
            base
            .appendingPathComponent("\(prefix)\(test ?? "")-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        remove()
    }

    /// Removes the folder and everything in it now.
    ///
    /// Tried up to five times: a store still held by a task that is ending (a stream's producer) may write its
    /// last access journal while the folder is being removed, and the removal then finds the store's folder not
    /// empty.
    public func remove() {
        for _ in 0..<5 {
            guard (try? FileManager.default.removeItem(at: url)) == nil else { return }
            guard FileManager.default.fileExists(atPath: url.path) else { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// The path of a file or folder inside.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }
}
