import Foundation

extension FuzzTarget {
    /// The input files at `paths`: each file itself, and every regular file in a folder (not recursive), by name.
    public static func inputs(at paths: [String]) throws -> [URL] {
        var files: [URL] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            let values = try url.resourceValues(forKeys: [.isDirectoryKey])
            guard values.isDirectory == true else {
                files.append(url)
                continue
            }
            let contents = try FileManager.default.contentsOfDirectory(
                at: url,
                includingPropertiesForKeys: [.isRegularFileKey]
            )
            files += try contents.filter { try $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
        return files
    }

    /// Runs the target on each file: the failures, by file.
    public func replay(_ files: [URL]) throws -> [(file: URL, failure: FuzzFailure)] {
        var failures: [(file: URL, failure: FuzzFailure)] = []
        for file in files {
            do {
                try run(Array(try Data(contentsOf: file)))
            } catch let failure as FuzzFailure {
                failures.append((file, failure))
            }
        }
        return failures
    }
}
