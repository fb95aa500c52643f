import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A unique folder under the system's temporary directory, removed by ``remove()``.
public struct TemporaryFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Creates the folder `strata-bench-<name>-<pid>-<random>`.
    public init(_ name: String) throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-bench-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The URL of `name` inside the folder.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Removes the folder and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }

    /// Writes `data` to `name` with POSIX `open`/`write`/`close` and no fsync: the fast way to lay out a
    /// fixture of many files (what is measured is never this).
    public func writeQuickly(_ data: Data, to name: String) throws {
        let path = file(name).path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count else { throw CocoaError(.fileWriteUnknown) }
    }
}
