/// A source that deletes values.
public protocol DeleteDataSource: DataSourceCapabilities {
    /// Deletes what the query names: one entry, several (``IdsQuery``) or all (``AllObjectsQuery``).
    ///
    /// Deleting something that is not there succeeds.
    ///
    /// - Parameter query: What to delete.
    func delete(_ query: any Query) async throws
}
