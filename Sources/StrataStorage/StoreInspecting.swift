import Foundation
import Strata

/// A store's inspector (`FileStoreInspector`, `JSONFileStoreInspector`): the one way an inspector opens the folder
/// it reads and holds it while it lives.
package protocol StoreInspecting {
    /// The kind of the marker the inspected store writes (`file`, `json`).
    static var markerKind: String { get }

    /// The store's name in messages ("file store", "JSON-file store").
    static var kindName: String { get }

    /// The path the folder `folder` names is opened at.
    static func storePath(of folder: URL) -> String

    /// Makes the inspector of a folder opened and claimed for it.
    init(_ inspection: StoreInspection)
}

/// A store's folder as an inspector opened and claimed it.
package struct StoreInspection: Sendable {
    /// The folder's URL, as the inspector was given it.
    package let url: URL

    /// How the folder is held.
    package let access: StoreAccess

    /// The most bytes of keys and metadata the inspector takes into memory.
    package let maximumMetadataSize: Int

    /// The open folder.
    package let folder: StoreFolder

    /// The inspector's claim on the folder, which it releases when it is done.
    package let ownership: StoreOwnership
}

extension StoreInspecting {
    /// Opens the store in `folder` and claims it as `access` says, only if it is still the folder `expected` names:
    /// the `strata` tool checks a folder, then hands it here by its path.
    ///
    /// The folder must carry the marker of ``markerKind`` (``StoreFolder/openStore(_:kind:kindName:expecting:)``).
    /// ``Strata/StoreAccess/readOnly`` shares the folder with other readers and creates nothing, not even a lock
    /// file; ``Strata/StoreAccess/readWrite`` holds it alone, as a store does.
    ///
    /// - Parameters:
    ///   - folder: A store's folder.
    ///   - access: How to hold the folder.
    ///   - expected: The folder a caller checked before, by its identity; `nil` for whatever is at the path.
    ///   - maximumMetadataSize: The most bytes of keys and metadata the inspector takes into memory; `nil` for the
    ///     stores' default (256 MiB).
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for a `maximumMetadataSize` below 1; as
    ///   ``StoreFolder/openStore(_:kind:kindName:expecting:)`` and ``StoreOwnership/claim(_:mode:owner:)`` throw.
    package init(
        folder: URL,
        access: StoreAccess,
        expecting expected: FolderIdentity?,
        maximumMetadataSize: Int? = nil
    ) throws(StrataError) {
        let limit = maximumMetadataSize ?? StoreLimits.defaultMaximumMetadataSize
        try StoreLimits.validate(maximumMetadataSize: limit)
        // The marker first: a folder that is no store of this kind is left exactly as it is (not even a lock file).
        let opened = try StoreFolder.openStore(
            Self.storePath(of: folder),
            kind: Self.markerKind,
            kindName: Self.kindName,
            expecting: expected
        )
        let ownership = try StoreOwnership.claim(
            opened,
            mode: access == .readOnly ? .shared : .exclusive,
            owner: "a \(Self.self)"
        )
        self.init(
            StoreInspection(
                url: folder,
                access: access,
                maximumMetadataSize: limit,
                folder: opened,
                ownership: ownership
            )
        )
    }
}
