import Strata

/// Maps a ``Strata/Query`` to the ``HTTPRequest`` that answers it, for the network data sources.
///
/// Throw ``Strata/StrataError/queryNotSupported(_:by:file:line:)`` for a query the API cannot answer;
/// any other error a rule throws becomes ``Strata/StrataError/Code/invalidArgument``.
///
/// ```swift
/// let requestForGet: NetworkRequestRule = { query in
///     guard let query = query as? any KeyedQuery else {
///         throw StrataError.queryNotSupported(query, by: NetworkGetDataSource<User>.self)
///     }
///     return HTTPRequest(.get, baseURL: api, path: "users/\(query.key)")
/// }
/// ```
public typealias NetworkRequestRule = @Sendable (any Query) throws -> HTTPRequest

/// Runs a rule, turning foreign errors into ``Strata/StrataError/Code/invalidArgument``.
func makeRequest(_ rule: NetworkRequestRule, for query: any Query) throws -> HTTPRequest {
    do {
        return try rule(query)
    } catch let error as StrataError {
        throw error
    } catch {
        throw StrataError(.invalidArgument, "No request for \(type(of: query)): \(error)", underlying: error)
    }
}

extension HTTPRequest {
    /// The request with the task's ``Strata/IdempotencyKey/current`` key as its `Idempotency-Key` header, unless
    /// the rule set one; unchanged outside a keyed write.
    func carryingIdempotencyKey() -> HTTPRequest {
        guard let key = IdempotencyKey.current, headers[IdempotencyKey.headerName] == nil else { return self }
        var request = self
        request.headers[IdempotencyKey.headerName] = key
        return request
    }
}
