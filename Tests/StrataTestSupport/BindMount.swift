import Foundation

/// A bind mount made with the system's `mount`, for tests that reach one folder through a second path; the
/// test skips (printing why) when `mount` is unavailable or not permitted (not root).
package final class BindMount {
    /// The mount point.
    package let url: URL

    private init(url: URL) {
        self.url = url
    }

    /// Whether a read-only bind mount can be made here (root, with `mount` permitted): probed once, on a folder of
    /// its own, so a test is skipped by the machine, never by a mount that failed for it.
    package static let isAvailable: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bind-probe-\(UUID())")
        defer { try? FileManager.default.removeItem(at: probe) }
        let source = probe.appendingPathComponent("source", isDirectory: true)
        guard (try? FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)) != nil else {
            return false
        }
        var mount = make(source, at: probe.appendingPathComponent("target", isDirectory: true), readOnly: true)
        let made = mount != nil
        mount = nil  // unmounted before the probe's folder is removed
        return made
    }()

    /// Mounts `source` at `target` (created when missing), then remounts it read-only when asked; `nil` (after
    /// printing why the test is skipped) when that is not possible here.
    package static func make(_ source: URL, at target: URL, readOnly: Bool = false, test: String = #function)
        -> BindMount?
    {
        try? FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        if let failure = run(["--bind", source.path, target.path]) {
            print("\(test) skipped: mount --bind is unavailable here (\(failure))")
            return nil
        }
        let mount = BindMount(url: target)
        if readOnly, let failure = run(["-o", "remount,ro,bind", target.path]) {
            print("\(test) skipped: a read-only remount is unavailable here (\(failure))")
            return nil
        }
        return mount
    }

    deinit {
        _ = Self.run([url.path], tool: "umount")
    }

    /// Runs `mount` (or `tool`) with `arguments`; `nil` on success, else what went wrong.
    private static func run(_ arguments: [String], tool: String = "mount") -> String? {
        let candidates = ["/usr/bin/\(tool)", "/bin/\(tool)", "/sbin/\(tool)", "/usr/sbin/\(tool)"]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return "no \(tool) command"
        }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "\(error)"
        }
        let message = errors.fileHandleForReading.readToEndAcrossInterrupts()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return nil
    }
}
