extension ChangeBroadcaster {
    /// Announces a write to the entries a query names.
    ///
    /// A ``KeyedQuery`` becomes ``DataChange/put(key:)``, a ``MultiKeyedQuery`` one put per key, and any
    /// other query ``DataChange/invalidateAll``.
    ///
    /// - Parameter query: The query of the write.
    public func publishWrite(to query: any Query) {
        guard hasObservers else { return }
        switch query {
        case let query as any KeyedQuery: publish(.put(key: query.key))
        case let query as any MultiKeyedQuery: for key in query.keys { publish(.put(key: key)) }
        default: publish(.invalidateAll)
        }
    }

    /// Announces a delete of the entries a query names.
    ///
    /// A ``KeyedQuery`` becomes ``DataChange/delete(key:)``, a ``MultiKeyedQuery`` one delete per key,
    /// ``AllObjectsQuery`` ``DataChange/deleteAll`` and any other query ``DataChange/invalidateAll``.
    ///
    /// - Parameter query: The query of the delete.
    public func publishDeletion(of query: any Query) {
        guard hasObservers else { return }
        switch query {
        case let query as any KeyedQuery: publish(.delete(key: query.key))
        case let query as any MultiKeyedQuery: for key in query.keys { publish(.delete(key: key)) }
        case is AllObjectsQuery: publish(.deleteAll)
        default: publish(.invalidateAll)
        }
    }
}
