import Foundation

/// What this process holds open in `folder` or below it: the targets of its descriptors (`/proc/self/fd`) that lie
/// there. A test of a store checks it is empty once every store in the folder is gone: a descriptor left open is one
/// a long-running process loses for good at each store it opens (and, past its limit, every file it then opens).
///
/// Linux only (`/proc`); on other systems the list is empty, and tests built on it check nothing there.
public func openDescriptors(under folder: URL) -> [String] {
    #if os(Linux)
        let root = folder.resolvingSymlinksInPath().standardizedFileURL.path
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                target == root || target.hasPrefix(root + "/")
            else { return nil }
            return target
        }
        .sorted()
    #else
        return []
    #endif
}
