import Foundation

/// What this process holds open in `folder` or below it: the targets of its descriptors (`/proc/self/fd`) that lie
/// there. A test of a store checks it is empty once every store in the folder is gone: a descriptor left open is one
/// a long-running process loses for good at each store it opens (and, past its limit, every file it then opens).
///
/// Linux only (`/proc`); on other systems the list is empty, and tests built on it check nothing there.
public func openDescriptors(under folder: URL) -> [String] {
    #if os(Linux)
        let files = FileManager.default
        let descriptors = (try? files.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return paths(
            descriptors.compactMap { try? files.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) },
            in: folder
        )
    #else
        return []
    #endif
}

/// What a program started now (`posix_spawn`, as an app starts one) inherits of this process's descriptors in `folder`
/// or below it: those opened without close-on-exec. A store's must be none: a child that inherits one keeps the file
/// open after the store is gone, and the store's lock (held on its open file description) alive after this process
/// ended, so that the app, started again, finds its own store taken.
///
/// Linux only (`/proc`); on other systems the list is empty, and tests built on it check nothing there.
///
/// - Throws: When the program cannot be started.
public func descriptorsAChildInherits(under folder: URL) throws -> [String] {
    #if os(Linux)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "for descriptor in /proc/$$/fd/*; do readlink \"$descriptor\"; done"]
        process.inheritsDescriptors = true
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let listed = output.fileHandleForReading.readToEndAcrossInterrupts()
        process.waitUntilExit()
        return paths(String(decoding: listed, as: UTF8.self).split(separator: "\n").map(String.init), in: folder)
    #else
        return []
    #endif
}

/// The paths of `targets` that are `folder` or lie below it (its links resolved), sorted.
private func paths(_ targets: [String], in folder: URL) -> [String] {
    let root = folder.resolvingSymlinksInPath().standardizedFileURL.path
    return targets.filter { $0 == root || $0.hasPrefix(root + "/") }.sorted()
}
