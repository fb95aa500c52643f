import Strata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension StoreFolder {
    /// Opens an existing store folder for an inspector and checks its marker, changing nothing on the way.
    ///
    /// The one rule for every inspector (and so for the `strata` tool): a folder is a store of `kind` only if it
    /// carries that kind's marker at a layout this build reads. Entry-like names, a lock file or an `entries`
    /// folder count for nothing, and a link in the folder's place is refused.
    /// - Parameters:
    ///   - path: The folder.
    ///   - kind: The marker's kind (`file`, `json`).
    ///   - kindName: The store's name in messages ("file store", "JSON-file store").
    ///   - expected: The folder a caller checked before, by its identity; `nil` for whatever is at `path`.
    /// - Throws: ``Strata/StrataError/Code/notFound`` when nothing is at `path`,
    ///   ``Strata/StrataError/Code/invalidArgument`` when it is a link or a file, or not a store of `kind`,
    ///   ``Strata/StrataError/Code/conflict`` when it is not `expected` or, expected, missing (see ``expect(_:)``),
    ///   ``Strata/StrataError/Code/io`` when it cannot be opened.
    package static func openStore(
        _ path: String,
        kind: String,
        kindName: String,
        expecting expected: FolderIdentity? = nil
    ) throws(StrataError) -> StoreFolder {
        let folder: StoreFolder
        do {
            folder = try open(path, create: false)
        } catch {
            if error.isNotFound {
                if let expected { throw vanished(path, expected) }
                throw StrataError.notFound("No folder at \(path)")
            }
            if error.isLink || error.isWrongKind {
                throw StrataError(.invalidArgument, "\(path) is not a folder (a link or a file is there)")
            }
            throw error.strataError("Opening the store folder")
        }
        try folder.expect(expected)
        switch StoreMarker.read(in: folder) {
        case .marker(let contents) where contents.kind != kind:
            throw StrataError(.invalidArgument, "\(path) holds a Strata \(contents.kind) store, not a \(kindName)")
        case .marker(let contents) where contents.version > StoreMarker.currentVersion:
            throw StrataError(
                .invalidArgument,
                "\(path) was written by a newer Strata (layout \(contents.version), this one reads up to "
                    + "\(StoreMarker.currentVersion)); use that version"
            )
        case .marker:
            return folder
        case .missing:
            throw StrataError(
                .invalidArgument,
                "\(path) is not a Strata \(kindName): it has no \(StoreMarker.fileName) marker"
            )
        case .unrecognised(let reason):
            throw StrataError(.invalidArgument, "\(path) is not a Strata \(kindName): \(reason)")
        case .unreadable(let error):
            throw error.strataError("Reading the store marker of \(path)")
        }
    }

    /// Whether `path` is a store folder of `kind` by ``openStore(_:kind:kindName:)``'s rule; never throws.
    package static func isStore(at path: String, kind: String) -> Bool {
        (try? openStore(path, kind: kind, kindName: kind)) != nil
    }

    /// Refuses this folder unless it is `expected` (any folder when `nil`): a caller that checked a folder, then
    /// opens it again by its path, meets another folder there if one was put at the path meanwhile.
    ///
    /// - Throws: ``Strata/StrataError/Code/conflict``; nothing in either folder is changed.
    package func expect(_ expected: FolderIdentity?) throws(StrataError) {
        guard let expected, identity != expected else { return }
        throw StrataError(
            .conflict,
            "\(path) is no longer the folder that was checked (\(expected)): another folder (\(identity)) was put at "
                + "its path meanwhile. Nothing was changed"
        )
    }

    /// The error of a folder a caller checked before that is no longer at `path`: nothing is there now.
    package static func vanished(_ path: String, _ expected: FolderIdentity) -> StrataError {
        StrataError(.conflict, "\(path) is no longer the folder that was checked (\(expected)): nothing is there")
    }
}
