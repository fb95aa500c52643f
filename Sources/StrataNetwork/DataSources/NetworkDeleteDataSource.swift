import Strata

/// A ``Strata/DeleteDataSource`` over HTTP: a rule turns each query into a request (usually `DELETE`).
///
/// A 404 or 410 (Gone: a server that keeps what it deleted as a tombstone) counts as success: deleting what is not
/// there succeeds, as ``Strata/DeleteDataSource`` asks, a delete sent again after one carried out included. A delete
/// made with an ``Strata/IdempotencyKey/current`` key (an outbox replay) sends it as the `Idempotency-Key` header,
/// and one made with an ``Strata/ExpectedVersion/current`` version sends it as `If-Match`.
public struct NetworkDeleteDataSource: DeleteDataSource {
    /// The client that sends the requests.
    public let client: HTTPClient

    private let request: NetworkRequestRule

    /// Creates a source.
    ///
    /// - Parameters:
    ///   - client: The client.
    ///   - request: Maps a query to a request.
    public init(client: HTTPClient, request: @escaping NetworkRequestRule) {
        self.client = client
        self.request = request
    }

    /// Sends the request of the query.
    ///
    /// - Throws: ``Strata/StrataError``, see ``HTTPClient/send(_:)``; never `notFound`.
    public func delete(_ query: any Query) async throws {
        do {
            _ = try await client.send(makeRequest(request, for: query).carryingWriteContext())
        } catch let error as StrataError
            where error.code == .notFound && [404, 410].contains(error.httpFailure?.status)
        {
            return
        }
    }
}
