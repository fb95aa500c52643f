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
///     return HTTPRequest(.get, baseURL: base, path: "users/\(query.key)")
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
    /// The request with the task's ``Strata/IdempotencyKey/current`` key as its `Idempotency-Key` header and its
    /// ``Strata/ExpectedVersion/current`` version as its `If-Match` header, each unless the rule set it; unchanged
    /// outside such a write. A weak entity tag (`W/"…"`) is not sent: `If-Match` compares strongly (RFC 9110,
    /// section 13.1.1), so a server would refuse the write every time; it goes as a write whose entry has no tag.
    func carryingWriteContext() -> HTTPRequest {
        var request = self
        let version = ExpectedVersion.current.flatMap { $0.hasPrefix("W/") ? nil : $0 }
        for (name, value) in [
            (IdempotencyKey.headerName, IdempotencyKey.current), (ExpectedVersion.headerName, version),
        ] {
            guard let value, request.headers[name] == nil else { continue }
            request.headers[name] = value
        }
        return request
    }
}
