/// A query for one key that can be sent together with others of its type as one query for several keys.
///
/// A ``BatchingDataSource`` gathers the single-key reads that arrive together and sends them to its source as
/// the query ``batch(_:)`` makes. ``IdQuery`` batches into an ``IdsQuery`` of the same id type, ``KeyQuery``
/// into an `IdsQuery<String>` of the keys.
public protocol BatchableQuery: KeyedQuery {
    /// One query for the keys of `queries`, in their order.
    ///
    /// The answer is matched to the ``MultiKeyedQuery/keys`` of the query this returns: one that names the keys in
    /// another order (sorted, as a server may want them) still hands each caller its own key's value, and a key it
    /// leaves out is ``StrataError/Code/notFound`` for that key's callers.
    ///
    /// - Parameter queries: Single-key queries, none of them for the same key.
    static func batch(_ queries: [Self]) -> any MultiKeyedQuery
}

extension IdQuery: BatchableQuery {
    /// An ``IdsQuery`` of the ids, in order.
    public static func batch(_ queries: [IdQuery<ID>]) -> any MultiKeyedQuery { IdsQuery(queries.map { $0.id }) }
}

extension KeyQuery: BatchableQuery {
    /// An ``IdsQuery`` of the keys, in order.
    public static func batch(_ queries: [KeyQuery]) -> any MultiKeyedQuery { IdsQuery(queries.map(\.key)) }
}
