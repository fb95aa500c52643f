import Foundation

/// Makes `file` immutable (`chattr +i`; `chflags uchg` on Darwin), or mutable again; returns whether it could. Not
/// even root can remove an immutable file: the tests' way to make the removal of a file fail.
@discardableResult
public func setImmutable(_ file: URL, _ immutable: Bool) -> Bool {
    #if canImport(Darwin)
        let (tool, flag) = ("/usr/bin/chflags", immutable ? "uchg" : "nouchg")
    #else
        let (tool, flag) = ("/usr/bin/chattr", immutable ? "+i" : "-i")
    #endif
    let process = ChildProcess()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = [flag, file.path]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do {
        try process.run()
    } catch {
        return false
    }
    process.waitUntilExit()
    return process.terminationStatus == 0
}

/// Whether this machine can make a file immutable (``setImmutable(_:_:)``): the tool, a file system that keeps the
/// flag, and the right to set it.
public let immutableFilesWork: Bool = {
    let probe = FileManager.default.temporaryDirectory.appendingPathComponent("strata-immutable-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: probe.path, contents: Data()) else { return false }
    defer {
        setImmutable(probe, false)
        try? FileManager.default.removeItem(at: probe)
    }
    guard setImmutable(probe, true) else { return false }
    return (try? FileManager.default.removeItem(at: probe)) == nil
}()
