import Foundation
import Strata

/// A full ``Strata/DataSource`` over HTTP, made of a ``NetworkGetDataSource``, a
/// ``NetworkPutDataSource`` and a ``NetworkDeleteDataSource``.
///
/// Use it as the main source of a ``Strata/CacheRepository``, with the same queries on both sides:
///
/// ```swift
/// let api = NetworkDataSource<User>(
///     client: client,
///     requestForGet: { query in try HTTPRequest(.get, baseURL: base, path: "users/\(key(query))") },
///     requestForPut: { query in try HTTPRequest(.put, baseURL: base, path: "users/\(key(query))") },
///     requestForDelete: { query in try HTTPRequest(.delete, baseURL: base, path: "users/\(key(query))") }
/// )
/// let users = CacheRepository(main: api, cache: MemoryDataSource<User>(countLimit: 100))
/// ```
public struct NetworkDataSource<Value: Sendable>: DataSource {
    /// The part that reads.
    public let getter: NetworkGetDataSource<Value>

    /// The part that writes.
    public let putter: NetworkPutDataSource<Value>

    /// The part that deletes.
    public let deleter: NetworkDeleteDataSource

    /// Assembles a source from its three parts.
    ///
    /// - Parameters:
    ///   - get: Answers `get` and `getAll`.
    ///   - put: Answers `put` and `putAll`.
    ///   - delete: Answers `delete`.
    public init(get: NetworkGetDataSource<Value>, put: NetworkPutDataSource<Value>, delete: NetworkDeleteDataSource) {
        self.getter = get
        self.putter = put
        self.deleter = delete
    }

    /// Reads through ``getter``.
    public func get(_ query: any Query) async throws -> Value { try await getter.get(query) }

    /// Reads through ``getter``.
    public func getAll(_ query: any Query) async throws -> [Value] { try await getter.getAll(query) }

    /// Reads through ``getter``, with the response's metadata (see ``NetworkGetDataSource/getEntry(_:)``).
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Value> { try await getter.getEntry(query) }

    /// Reads a list through ``getter``, each value with the response's metadata (see
    /// ``NetworkGetDataSource/getAllEntries(_:)``).
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
        try await getter.getAllEntries(query)
    }

    /// Revalidates through ``getter`` (see ``NetworkGetDataSource/getIfModified(_:since:)``): a 304 is
    /// ``Strata/ConditionalRead/notModified(_:)``.
    public func getIfModified(_ query: any Query, since metadata: EntryMetadata) async throws -> ConditionalRead<Value>
    {
        try await getter.getIfModified(query, since: metadata)
    }

    /// Writes through ``putter``.
    public func put(_ value: Value, in query: any Query) async throws -> Value {
        try await putter.put(value, in: query)
    }

    /// Writes through ``putter``.
    public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        try await putter.putAll(values, in: query)
    }

    /// Deletes through ``deleter``.
    public func delete(_ query: any Query) async throws { try await deleter.delete(query) }
}

extension NetworkDataSource where Value: Codable {
    /// Creates a JSON source from three request rules.
    ///
    /// - Parameters:
    ///   - client: The client.
    ///   - encoder: Makes the encoder for bodies.
    ///   - decoder: Makes the decoder for responses.
    ///   - requestForGet: The request of a `get` or `getAll`.
    ///   - requestForPut: The request of a `put` or `putAll` (method and URL; the body is the value).
    ///   - requestForDelete: The request of a `delete`.
    public init(
        client: HTTPClient,
        encoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() },
        decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
        requestForGet: @escaping NetworkRequestRule,
        requestForPut: @escaping NetworkRequestRule,
        requestForDelete: @escaping NetworkRequestRule
    ) {
        self.init(
            get: NetworkGetDataSource(client: client, decoder: decoder, request: requestForGet),
            put: NetworkPutDataSource(client: client, encoder: encoder, decoder: decoder, request: requestForPut),
            delete: NetworkDeleteDataSource(client: client, request: requestForDelete)
        )
    }
}
