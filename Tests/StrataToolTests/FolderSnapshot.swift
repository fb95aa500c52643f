import Foundation

/// Every item under a folder, recorded without following a link: a test compares two to prove the tool
/// created, removed, renamed, replaced or changed nothing.
struct FolderSnapshot: Equatable, CustomStringConvertible {
    /// Relative path → `file <inode> <bytes>`, `folder <inode>`, `link <inode> → <destination>` or `other`.
    let items: [String: String]

    /// The items of `snapshot` under `prefix`, with the prefix taken off: what a snapshot of that subfolder
    /// holds.
    init(_ snapshot: FolderSnapshot, under prefix: String) {
        items = Dictionary(
            uniqueKeysWithValues: snapshot.items.filter { $0.key.hasPrefix(prefix) }
                .map { (String($0.key.dropFirst(prefix.count)), $0.value) }
        )
    }

    /// Records every item under `url`.
    init(_ url: URL) throws {
        var items: [String: String] = [:]
        try Self.walk(url, prefix: "", into: &items)
        self.items = items
    }

    private static func walk(_ url: URL, prefix: String, into items: inout [String: String]) throws {
        let manager = FileManager.default
        for name in try manager.contentsOfDirectory(atPath: url.path) {
            let item = url.appendingPathComponent(name)
            let path = prefix + name
            // attributesOfItem does not follow a link: it describes the link itself.
            let attributes = try manager.attributesOfItem(atPath: item.path)
            let inode = attributes[.systemFileNumber] as? Int ?? -1
            switch attributes[.type] as? FileAttributeType {
            case .typeSymbolicLink?:
                items[path] = "link \(inode) → " + (try manager.destinationOfSymbolicLink(atPath: item.path))
            case .typeDirectory?:
                items[path] = "folder \(inode)"
                try walk(item, prefix: path + "/", into: &items)
            case .typeRegular?:
                items[path] = "file \(inode) " + (try Data(contentsOf: item)).base64EncodedString()
            default:
                items[path] = "other \(inode)"
            }
        }
    }

    var description: String {
        items.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.prefix(60))" }.joined(separator: "\n")
    }
}
