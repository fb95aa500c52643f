import Foundation

/// One entry file of a ``FileDataSource`` folder as a ``FileStoreInspector`` found it: its metadata, or what
/// is wrong with it.
public struct FileStoreEntry: Sendable, Hashable {
    /// The entry's file name in the store's folder (32 hex digits and `.strata`).
    public var fileName: String

    /// The length of the file in bytes: the data and its metadata trailer.
    public var fileSize: Int

    /// What the entry's metadata says; `nil` when the file is damaged (see ``problem``).
    public var info: FileEntryInfo?

    /// The entry's place in the least-recently-used order: higher is more recent, 0 for a damaged file.
    public var accessSequence: UInt64

    /// Why the file is not a whole, readable entry; `nil` for a sound one.
    public var problem: String?

    /// Whether ``problem`` is damage, which the store itself discards (removes, or sets aside): `false` for a sound
    /// entry and for one the store leaves as it is — a file this process cannot read (permissions, an I/O error),
    /// or one a later version of Strata wrote in a layout this one does not know.
    public var isDamaged: Bool

    /// Creates an entry description.
    ///
    /// - Parameters:
    ///   - fileName: The file's name in the store's folder.
    ///   - fileSize: The file's length.
    ///   - info: The entry's metadata, `nil` when damaged.
    ///   - accessSequence: Its place in the recency order.
    ///   - problem: Why the file is damaged, `nil` when sound.
    ///   - isDamaged: Whether `problem` is damage the store discards; `nil` for `problem != nil`.
    public init(
        fileName: String,
        fileSize: Int,
        info: FileEntryInfo?,
        accessSequence: UInt64,
        problem: String?,
        isDamaged: Bool? = nil
    ) {
        self.fileName = fileName
        self.fileSize = fileSize
        self.info = info
        self.accessSequence = accessSequence
        self.problem = problem
        self.isDamaged = problem != nil && (isDamaged ?? true)
    }
}
