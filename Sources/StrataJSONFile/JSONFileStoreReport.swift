/// What a ``JSONFileStoreInspector`` found in a store's folder.
public struct JSONFileStoreReport: Sendable, Hashable {
    /// The entries the index names (or, when the index is missing or damaged, the readable entry files).
    public var entries: [JSONFileStoreEntry]

    /// What is wrong with the index (`index.journal`); `nil` when it is sound.
    public var indexProblem: String?

    /// Entry files no index record names (left by a crash or a damaged index; ``JSONFileDataSource/removeExpired()``
    /// takes the intact ones into the index), as paths inside the store's folder.
    public var orphans: [String]

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - entries: The entries.
    ///   - indexProblem: What is wrong with the index.
    ///   - orphans: Entry files the index does not name.
    public init(entries: [JSONFileStoreEntry], indexProblem: String?, orphans: [String]) {
        self.entries = entries
        self.indexProblem = indexProblem
        self.orphans = orphans
    }
}
