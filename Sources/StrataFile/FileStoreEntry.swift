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

    /// Creates an entry description.
    ///
    /// - Parameters:
    ///   - fileName: The file's name in the store's folder.
    ///   - fileSize: The file's length.
    ///   - info: The entry's metadata, `nil` when damaged.
    ///   - accessSequence: Its place in the recency order.
    ///   - problem: Why the file is damaged, `nil` when sound.
    public init(fileName: String, fileSize: Int, info: FileEntryInfo?, accessSequence: UInt64, problem: String?) {
        self.fileName = fileName
        self.fileSize = fileSize
        self.info = info
        self.accessSequence = accessSequence
        self.problem = problem
    }
}
