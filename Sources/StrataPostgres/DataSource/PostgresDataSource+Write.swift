#if Postgres
    import PostgresNIO
    import Strata

    extension PostgresDataSource {
        /// Stores a value under the key a ``Strata/KeyedQuery`` names, replacing any row (with a new version).
        ///
        /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for an empty key,
        ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries, ``Strata/StrataError/Code/tooLarge`` for a
        ///   value whose JSON, as encoded or as PostgreSQL prints `jsonb`, is longer than ``maximumValueSize`` (nothing
        ///   is written); see ``PostgresDataSource``.
        public func put(_ value: Value, in query: any Query) async throws -> Value {
            try await upsert([(try key(of: query), value)])
            return value
        }

        /// Stores values in one statement (one transaction: all or none): one per key of an ``Strata/IdsQuery``, exactly
        /// one for a keyed query, or each under ``keyOfValue`` for ``Strata/AllObjectsQuery``. When a key comes twice,
        /// its last value is stored.
        ///
        /// - Throws: ``Strata/StrataError/Code/invalidArgument`` when the counts differ,
        ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries and for a non-empty list without
        ///   ``keyOfValue``, ``Strata/StrataError/Code/tooLarge`` when a value's JSON, as encoded or as PostgreSQL
        ///   prints `jsonb`, is longer than ``maximumValueSize`` (nothing is written).
        public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
            let keys: [String]
            switch query {
            case let query as any MultiKeyedQuery: keys = query.keys
            case let query as any KeyedQuery: keys = [query.key]
            case is AllObjectsQuery:
                guard let keyOfValue else {
                    if values.isEmpty { return [] }
                    throw StrataError.queryNotSupported(query, by: Self.self)
                }
                keys = values.map(keyOfValue)
            default:
                throw StrataError.queryNotSupported(query, by: Self.self)
            }
            guard keys.count == values.count else {
                throw StrataError(.invalidArgument, "\(values.count) values for \(keys.count) keys")
            }
            try await upsert(zip(try keys.map(checkedKey), values).map { ($0, $1) })
            return values
        }

        /// Deletes one row (``Strata/KeyedQuery``), several (``Strata/MultiKeyedQuery``), every one
        /// (``Strata/AllObjectsQuery``), a ``PostgresFilterQuery``'s, or those another ``Strata/KeyListingQuery``
        /// selects. Deleting a missing key succeeds.
        ///
        /// - Throws: ``Strata/StrataError/Code/queryNotSupported`` for other queries,
        ///   ``Strata/StrataError/Code/tooLarge`` when the table has more keys than ``maximumRowCount`` for a key
        ///   listing to choose from.
        public func delete(_ query: any Query) async throws {
            switch query {
            case let query as any KeyedQuery:
                let binds = Self.bindings([try checkedKey(query.key)])
                try await perform("delete") { try await execute(sql.deleteMany, binds) }
            case let query as any MultiKeyedQuery:
                let binds = Self.bindings(try query.keys.map(checkedKey))
                try await perform("delete") { try await execute(sql.deleteMany, binds) }
            case is AllObjectsQuery:
                try await perform("delete") { try await execute(sql.deleteAll, PostgresBindings()) }
            case let query as any PostgresFilterQuery:
                let condition = query.condition
                try await perform("delete") { try await execute(sql.deleteWhere(condition.sql), condition.binds) }
            case let query as any KeyListingQuery:
                try await perform("delete") {
                    let keys = query.selectKeys(from: try await self.keys(sql.selectKeys))
                    try await execute(sql.deleteMany, Self.bindings(keys))
                }
            default:
                throw StrataError.queryNotSupported(query, by: Self.self)
            }
        }

        /// Stores a value only if the row is still at `version` (or, for `nil`, only if there is no row), and returns
        /// the row's new version: optimistic concurrency.
        ///
        /// Read the version with ``versionedValue(forKey:)``.
        ///
        /// - Parameters:
        ///   - value: The value.
        ///   - key: The key.
        ///   - version: The version the writer last saw; `nil` to create the row.
        /// - Returns: The row's new version.
        /// - Throws: ``Strata/StrataError/Code/conflict`` when the row changed (or exists, for `nil`) since,
        ///   ``Strata/StrataError/Code/tooLarge`` for a value whose JSON, as encoded or as PostgreSQL prints `jsonb`, is
        ///   longer than ``maximumValueSize`` (nothing is written).
        public func put(_ value: Value, forKey key: String, ifVersion version: Int64?) async throws -> Int64 {
            var binds = Self.bindings(try checkedKey(key))
            binds.append(try encode(value))
            if let version { binds.append(version) }
            let statement = version == nil ? sql.insertNew : sql.conditionalUpdate
            guard let written = try await perform("write", { [binds] in try await versions(statement, binds) }).first
            else {
                throw StrataError(
                    .conflict,
                    "The row of the key changed since version \(version.map(String.init) ?? "none")"
                )
            }
            return written
        }

        /// Returns the value stored under `key` with its version, for ``put(_:forKey:ifVersion:)``.
        ///
        /// - Parameter key: The key.
        /// - Throws: ``Strata/StrataError/Code/notFound`` when there is no row, ``Strata/StrataError/Code/tooLarge``
        ///   when its value is longer than ``maximumValueSize`` (the server does not send it).
        public func versionedValue(forKey key: String) async throws -> (value: Value, version: Int64) {
            let binds = Self.bindings(try checkedKey(key))
            guard let row = try await perform("read", { try await rawRows(sql.selectOne, binds) }).first else {
                throw StrataError.notFound("No row for the key in \(table)")
            }
            return (try Self.decode(row.json), row.version)
        }

        /// Writes `(key, value)` pairs in one statement; a key given twice keeps its last value.
        ///
        /// - Throws: ``Strata/StrataError/Code/tooLarge``, before anything is sent, when the keys and the values' JSON
        ///   together are longer than ``maximumWriteSize``.
        func upsert(_ pairs: [(String, Value)]) async throws {
            guard !pairs.isEmpty else { return }
            var keys: [String] = []
            var jsons: [String] = []
            var indexOfKey: [String: Int] = [:]
            var size = 0
            for (key, value) in pairs {
                let json = try encode(value)
                size += json.utf8.count + key.utf8.count
                guard size <= maximumWriteSize else { throw writeTooLarge(size) }
                if let index = indexOfKey[key] {
                    jsons[index] = json
                } else {
                    indexOfKey[key] = keys.count
                    keys.append(key)
                    jsons.append(json)
                }
            }
            var binds = Self.bindings(keys)
            binds.append(jsons)
            _ = try await perform("write") { [binds] in try await versions(sql.upsert, binds) }
        }
    }
#endif
