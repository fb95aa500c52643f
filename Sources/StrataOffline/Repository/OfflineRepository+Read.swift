import Strata

extension OfflineRepository {
    /// Reads a value and says whether a write of its key waits to reach main.
    ///
    /// While a write of the key waits in the outbox, the newest one answers (a queued delete reads as
    /// ``Strata/StrataError/Code/notFound``) and main is not asked, so a read never brings back the value the
    /// write replaces. Otherwise the read goes through the repository with `operation`.
    ///
    /// - Parameters:
    ///   - query: Which value.
    ///   - operation: How to read when nothing waits; ``Strata/DefaultOperation`` by default.
    /// - Returns: The value and whether it is pending.
    public func get(
        _ query: any Query,
        operation: any RepositoryOperation = DefaultOperation()
    ) async throws -> OfflineValue<Value> {
        guard let key = (query as? any KeyedQuery)?.key, await outbox.isPending(key: key) else {
            return OfflineValue(value: try await repository.get(query, operation: operation), isPending: false)
        }
        guard let latest = await outbox.latest(forKey: key) else {
            // Only a first attempt is on its way: the cache has its value.
            return OfflineValue(
                value: try await repository.get(query, operation: .cacheIgnoringValidation),
                isPending: true
            )
        }
        guard latest.operation == .put, let data = latest.value else {
            throw StrataError.notFound("The value for key \(key) was deleted; the delete waits to reach main")
        }
        return OfflineValue(value: try decode(data), isPending: true)
    }

    /// Reads every value the query names through the repository (pending writes are in the cache).
    ///
    /// - Parameters:
    ///   - query: Which values.
    ///   - operation: How to read; ``Strata/DefaultOperation`` by default.
    public func getAll(
        _ query: any Query,
        operation: any RepositoryOperation = DefaultOperation()
    ) async throws -> [Value] {
        try await repository.getAll(query, operation: operation)
    }
}
