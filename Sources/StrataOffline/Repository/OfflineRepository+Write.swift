import Foundation
import Strata

extension OfflineRepository {
    /// Writes a value to the cache, then to main; when main fails with a retryable error, queues the write and
    /// succeeds with ``WriteStatus/pending(_:)``.
    ///
    /// When a write of the key already waits in the outbox, this one joins the queue behind it without asking
    /// main, so main receives the key's writes in order.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - query: A ``Strata/KeyedQuery``: the outbox replays writes by key.
    /// - Returns: Main's returned value and ``WriteStatus/saved``, or the cache's value and the queued record.
    /// - Throws: The cache's error (nothing reached main or the outbox); main's error when it is not retryable
    ///   (the cache has the value, as after a CacheSync write); ``Strata/StrataError/Code/queryNotSupported`` for a
    ///   query without a key; the outbox's error when the write could not be queued.
    @discardableResult
    public func put(_ value: Value, in query: any Query) async throws -> OfflineWrite<Value> {
        let key = try Self.key(of: query)
        let (sequence, direct) = try await outbox.beginWrite(key: key)
        let cached: Value
        do {
            cached = try await repository.put(value, in: query, operation: .cache)
        } catch {
            if direct { await outbox.endDirect(key: key) }
            throw error
        }
        let encoded = try encode(cached)
        let idempotencyKey = UUID().uuidString
        guard direct else {
            let record = try await enqueue(sequence, key, .put, encoded, idempotencyKey, after: nil)
            return OfflineWrite(value: cached, status: .pending(record))
        }
        do {
            let stored = try await IdempotencyKey.$current.withValue(idempotencyKey) {
                try await repository.main.put(cached, in: query)
            }
            await outbox.endDirect(key: key)
            if await outbox.count > 0 { triggerReplay(force: true) }
            return OfflineWrite(value: stored, status: .saved)
        } catch  where configuration.isRetryable(error) {
            return OfflineWrite(
                value: cached,
                status: .pending(try await enqueueAfterDirect(sequence, key, .put, encoded, idempotencyKey, error))
            )
        } catch {
            await outbox.endDirect(key: key)
            throw error
        }
    }

    /// Deletes the key from the cache, then from main; when main fails with a retryable error, queues the delete
    /// and succeeds with ``WriteStatus/pending(_:)``.
    ///
    /// A queued delete replaces the queued puts of its key before it (except one being sent): main would lose
    /// their values anyway.
    ///
    /// - Parameter query: A ``Strata/KeyedQuery``.
    /// - Returns: ``WriteStatus/saved`` or the queued record.
    /// - Throws: As ``put(_:in:)``.
    @discardableResult
    public func delete(_ query: any Query) async throws -> WriteStatus {
        let key = try Self.key(of: query)
        let (sequence, direct) = try await outbox.beginWrite(key: key)
        do {
            try await repository.delete(query, operation: .cache)
        } catch {
            if direct { await outbox.endDirect(key: key) }
            throw error
        }
        let idempotencyKey = UUID().uuidString
        guard direct else {
            return .pending(try await enqueue(sequence, key, .delete, nil, idempotencyKey, after: nil))
        }
        do {
            try await IdempotencyKey.$current.withValue(idempotencyKey) { try await repository.main.delete(query) }
            await outbox.endDirect(key: key)
            if await outbox.count > 0 { triggerReplay(force: true) }
            return .saved
        } catch  where configuration.isRetryable(error) {
            return .pending(try await enqueueAfterDirect(sequence, key, .delete, nil, idempotencyKey, error))
        } catch {
            await outbox.endDirect(key: key)
            throw error
        }
    }

    /// Queues a write whose first attempt failed, then lets the queue go on with the key.
    private func enqueueAfterDirect(
        _ sequence: UInt64,
        _ key: String,
        _ operation: PendingWrite.Operation,
        _ value: Data?,
        _ idempotencyKey: String,
        _ error: any Error
    ) async throws -> PendingWrite {
        do {
            let record = try await enqueue(sequence, key, operation, value, idempotencyKey, after: error)
            await outbox.endDirect(key: key)
            return record
        } catch {
            await outbox.endDirect(key: key)
            throw error
        }
    }

    /// Records a write in the outbox (after `error`, its first attempt's failure, or unsent) and schedules its
    /// replay.
    private func enqueue(
        _ sequence: UInt64,
        _ key: String,
        _ operation: PendingWrite.Operation,
        _ value: Data?,
        _ idempotencyKey: String,
        after error: (any Error)?
    ) async throws -> PendingWrite {
        let now = configuration.clock.now()
        var record = PendingWrite(
            sequence: sequence,
            key: key,
            operation: operation,
            value: value,
            idempotencyKey: idempotencyKey,
            createdAt: now
        )
        if let error {
            record.attempts = 1
            record.lastError = Self.describe(error)
            record.notBefore = now.addingTimeInterval(pause(after: error, attempt: 1).timeInterval)
        }
        let coalesces = configuration.coalescesWrites
        record = try await outbox.append(record) { old in
            operation == .delete ? (coalesces || old.operation == .put) : coalesces
        }
        if error == nil { triggerReplay(force: false) } else { scheduleTimer() }
        return record
    }

    /// The key of a keyed query, or *query not supported*.
    static func key(of query: any Query) throws -> String {
        guard let query = query as? any KeyedQuery else {
            throw StrataError(
                .queryNotSupported,
                "An offline repository writes by key; \(type(of: query)) names no single key"
            )
        }
        return query.key
    }

    /// The value as the outbox keeps it.
    func encode(_ value: Value) throws -> Data {
        do {
            return try configuration.makeEncoder().encode(value)
        } catch {
            throw StrataError.serialization(error, "Encoding a \(Value.self) for the outbox failed")
        }
    }

    /// A queued value, decoded.
    func decode(_ data: Data) throws -> Value {
        do {
            return try configuration.makeDecoder().decode(Value.self, from: data)
        } catch {
            throw StrataError.serialization(error, "A queued \(Value.self) no longer decodes")
        }
    }

    /// The one-line form of an error kept in a record.
    static func describe(_ error: any Error) -> String {
        String(String(describing: error).prefix(512))
    }
}
