import Foundation
import StrataStorage

/// What wrote a store folder, when a composition of StrataCache did: told from the folder's name and its
/// siblings, which the compositions name after the store (`<name>.checkout`; `<name>.freshness` from earlier
/// versions of BlobCache), or from its entries.
enum StoreRole: String {
    /// A BlobCache's persistent layer: the blobs, each with its freshness record in its attributes.
    case blobCache
    /// The freshness overrides (`<name>.freshness`) that earlier versions of BlobCache wrote beside the blobs, for
    /// a `304` or a lifetime extension; a cache that opens the blobs moves them into the blobs' entries.
    case blobCacheFreshness
    /// A FileCacheProvider's store, beside its checkout folder `<name>.checkout`.
    case fileCacheProvider

    /// The suffix of the freshness store's folder of earlier versions of BlobCache.
    static let freshnessSuffix = ".freshness"
    /// The suffix of a FileCacheProvider's default checkout folder.
    static let checkoutSuffix = ".checkout"

    /// The role of the file store in `url`, if its name or siblings tell one.
    static func of(fileStore url: URL) -> StoreRole? {
        let path = url.standardizedFileURL.path
        if path.hasSuffix(freshnessSuffix), holdsFileStore(String(path.dropLast(freshnessSuffix.count))) {
            return .blobCacheFreshness
        }
        if holdsFileStore(path + freshnessSuffix) { return .blobCache }
        if isFolder(path + checkoutSuffix) { return .fileCacheProvider }
        return nil
    }

    /// What the folder at `path`, which holds no store, is when a FileCacheProvider made it: its checkout
    /// folder, beside its store.
    static func describeUnmarked(_ path: String) -> String? {
        let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
        guard standardized.hasSuffix(checkoutSuffix) else { return nil }
        let store = String(standardized.dropLast(checkoutSuffix.count))
        guard holdsFileStore(store) else { return nil }
        return "\(path) is a FileCacheProvider's checkout folder (the plain copies it hands out), not a store; "
            + "its store is \(store). Nothing was changed."
    }

    /// How the table output names the role.
    var label: String {
        switch self {
        case .blobCache: "a BlobCache's persistent layer"
        case .blobCacheFreshness: "an earlier BlobCache's freshness overrides"
        case .fileCacheProvider: "a FileCacheProvider's store"
        }
    }

    private static func holdsFileStore(_ path: String) -> Bool {
        guard let folder = try? StoreFolder.open(path, create: false),
            case .marker(let contents) = StoreMarker.read(in: folder)
        else { return false }
        return contents.kind == "file"
    }

    private static func isFolder(_ path: String) -> Bool {
        (try? StoreFolder.open(path, create: false)) != nil
    }
}
