/// A query for every value a source holds (`getAll`), or for deleting every value (`delete`).
public struct AllObjectsQuery: Query, Hashable {
    /// Creates the query.
    public init() {}
}
