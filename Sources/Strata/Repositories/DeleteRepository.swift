/// A repository that deletes values, choosing its sources by the operation of each call.
public protocol DeleteRepository: RepositoryCapabilities {
    /// Deletes what the query names from the sources the operation selects.
    ///
    /// - Parameters:
    ///   - query: What to delete.
    ///   - operation: Which source to delete from first and which to keep in sync.
    func delete(_ query: any Query, operation: any RepositoryOperation) async throws
}

// MARK: - Conveniences

extension DeleteRepository {
    /// Deletes what the query names with ``DefaultOperation``.
    ///
    /// - Parameter query: What to delete.
    public func delete(_ query: any Query) async throws {
        try await delete(query, operation: DefaultOperation())
    }
}
