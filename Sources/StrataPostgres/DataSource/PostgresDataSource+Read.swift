#if Postgres
    import Foundation
    import PostgresNIO
    import Strata

    extension PostgresDataSource {
        /// Returns the value a ``Strata/KeyedQuery`` names.
        ///
        /// - Throws: ``Strata/StrataError/Code/notFound`` when there is no row, ``Strata/StrataError/Code/tooLarge`` when
        ///   its value is longer than ``maximumValueSize`` (the server does not send it); see ``PostgresDataSource`` for
        ///   the other codes.
        public func get(_ query: any Query) async throws -> Value {
            try await getEntry(query).value
        }

        /// Returns the entry a ``Strata/KeyedQuery`` names: its stored date is `updated_at`, its entity tag the row's
        /// version under the change feed's epoch (none while the feed is not listening).
        ///
        /// - Throws: As ``get(_:)``.
        public func getEntry(_ query: any Query) async throws -> StoredEntry<Value> {
            let key = try self.key(of: query)
            guard let row = try await perform("read", { try await rows(sql.selectOne, Self.bindings(key)) }).first
            else {
                throw StrataError.notFound("No row for the key in \(table)")
            }
            return row.entry
        }

        /// Returns the values a query names: an ``Strata/IdsQuery`` in its order, a keyed query as a list of one,
        /// ``Strata/AllObjectsQuery`` and pages in key order, a ``PostgresFilterQuery``'s matching rows, and the keys
        /// any other ``Strata/KeyListingQuery`` selects.
        ///
        /// - Throws: ``Strata/StrataError/Code/notFound`` when a named key has no row,
        ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries, ``Strata/StrataError/Code/tooLarge`` when
        ///   the read would answer more than ``maximumRowCount`` rows (or a key listing choose from more keys) or a value
        ///   is longer than ``maximumValueSize``.
        public func getAll(_ query: any Query) async throws -> [Value] {
            try await getAllEntries(query).map(\.value)
        }

        /// Returns the entries a query names, as ``getAll(_:)`` does, with their metadata.
        ///
        /// - Throws: As ``getAll(_:)``.
        public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
            switch query {
            case let query as any MultiKeyedQuery:
                let keys = try query.keys.map(checkedKey)
                return try await entries(ofKeys: keys, missing: .notFound)
            case let query as any KeyedQuery:
                return [try await getEntry(query)]
            case is AllObjectsQuery:
                return try await perform("read") { try await rows(sql.selectAll, PostgresBindings()) }.map(\.entry)
            case let query as PaginationOffsetLimitQuery:
                var binds = PostgresBindings()
                binds.append(Int64(query.offset))
                binds.append(Int64(query.limit))
                return try await perform("read") { [binds] in try await rows(sql.selectPage, binds) }.map(\.entry)
            case let query as any PostgresFilterQuery:
                let condition = query.condition
                return try await perform("read") {
                    try await rows(sql.selectWhere(condition.sql), condition.binds)
                }.map(\.entry)
            case let query as any KeyListingQuery:
                let keys = query.selectKeys(from: try await perform("read") { try await self.keys(sql.selectKeys) })
                return try await entries(ofKeys: keys, missing: .skipped)
            default:
                throw StrataError.queryNotSupported(query, by: Self.self)
            }
        }

        /// What a read of several keys does with a key that has no row.
        enum MissingRow { case notFound, skipped }

        /// The entries of `keys`, in their order.
        func entries(ofKeys keys: [String], missing: MissingRow) async throws -> [StoredEntry<Value>] {
            let found = try await perform("read") { try await rows(sql.selectMany, Self.bindings(keys)) }
            let byKey = Dictionary(found.map { ($0.key, $0.entry) }, uniquingKeysWith: { first, _ in first })
            return try keys.compactMap { key in
                if let entry = byKey[key] { return entry }
                if missing == .skipped { return nil }
                throw StrataError.notFound("No row for a key of the query in \(table)")
            }
        }

        /// A row as the statements select it.
        typealias RawRow = (key: String, json: String, version: Int64, updatedAt: Date)

        /// Runs a statement of ``PostgresStatements``' reads, whose rows are `(key, json, size, version, updated_at)`,
        /// tagging each entry with the feed's epoch as it was before the statement ran.
        func rows(_ statement: String, _ binds: PostgresBindings) async throws -> [(
            key: String, entry: StoredEntry<Value>
        )] {
            let epoch = feed.currentEpoch
            return try await rawRows(statement, binds).map { row in
                let tag = epoch.map { PostgresEntryTag(epoch: $0, version: row.version).description }
                let metadata = EntryMetadata(storedAt: row.updatedAt, eTag: tag)
                return (row.key, StoredEntry(value: try Self.decode(row.json), metadata: metadata))
            }
        }

        /// Runs a statement of ``PostgresStatements``' reads, whose rows are `(key, json, size, version, updated_at)`.
        ///
        /// - Throws: ``Strata/StrataError/Code/tooLarge`` for a row whose value or key the server withheld (a `NULL`
        ///   `json`: longer than ``maximumValueSize``; a `NULL` `key`: longer than ``maximumKeySize``) and for more than
        ///   ``maximumRowCount`` rows.
        func rawRows(_ statement: String, _ binds: PostgresBindings) async throws -> [RawRow] {
            try await boundedRows(statement, binds).map { row in
                let (key, json, size, version, updatedAt) = try row.decode((String?, String?, Int32, Int64, Date).self)
                guard let key else { throw keyTooLarge(nil) }
                guard let json else { throw valueTooLarge(Int(size)) }
                return (key, json, version, updatedAt)
            }
        }
    }
#endif
