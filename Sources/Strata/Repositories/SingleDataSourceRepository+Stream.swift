extension SingleDataSourceRepository where Source: GetDataSource {
    /// Returns a stream of responses for a query: loading, the source's answer, then a new answer after
    /// every change.
    ///
    /// A write through this repository
    /// (or a copy of it), or directly on the source when it announces changes
    /// (``DataSourceCapabilities/changes(forKey:)``), makes every open stream on the same key read again; a
    /// delete emits ``RepositoryResponse/error(_:origin:)`` with ``StrataError/Code/notFound`` once the source
    /// answers that it holds nothing under the key (a delete older than its value reads as a write). The origin is
    /// the source's (``DataSourceCapabilities/origin``) or
    /// ``DataOrigin/main``. Backpressure and cancellation are as for
    /// ``CacheRepository/stream(_:operation:bufferingNewest:)``.
    ///
    /// - Parameters:
    ///   - query: Which value to read; a ``KeyedQuery`` to observe one entry.
    ///   - limit: How many undelivered responses to keep; older ones are dropped first.
    /// - Returns: A stream of ``RepositoryResponse``s that ends when its consumer is cancelled.
    public func stream(
        _ query: any Query,
        bufferingNewest limit: Int = 1
    ) -> AsyncStream<RepositoryResponse<Source.Value>> {
        let origin = source.origin.specified(or: .main)
        let key = (query as? any KeyedQuery)?.key
        let stream = ResponseStream<Source.Value>(
            key: key,
            loadingOrigin: origin,
            primaryOrigin: origin,
            observe: { [changeBroadcaster.changes(forKey: key), source.changes(forKey: key)] },
            read: { emit in
                do {
                    // A repository as the source tells when it served a stale cached value.
                    let (entry, isStale) = try await StaleAnswerReport.reading { try await source.getEntry(query) }
                    emit(.value(entry.value, origin: origin, storedAt: entry.storedAt, isStale: isStale))
                } catch {
                    emit(.error(error, origin: origin))
                }
            },
            isGone: { await ResponseStream<Source.Value>.isGone { try await source.getEntry(query) } }
        )
        return stream.start(bufferingNewest: limit)
    }

    /// Returns a stream of responses for a query; the operation is ignored, as on every call of this repository.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: Ignored.
    ///   - limit: How many undelivered responses to keep.
    /// - Returns: As ``stream(_:bufferingNewest:)``.
    @available(*, deprecated, message: "The operation is ignored; call stream(_:bufferingNewest:)")
    public func stream(
        _ query: any Query,
        operation: any RepositoryOperation,
        bufferingNewest limit: Int = 1
    ) -> AsyncStream<RepositoryResponse<Source.Value>> {
        stream(query, bufferingNewest: limit)
    }
}
