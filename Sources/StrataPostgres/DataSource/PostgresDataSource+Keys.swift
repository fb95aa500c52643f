#if Postgres
    import Foundation
    import PostgresNIO
    import Strata

    extension PostgresDataSource {
        /// The key a keyed query names, in its canonical (NFC) form.
        ///
        /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for an empty key or one with U+0000 (which `text`
        ///   cannot hold), ``Strata/StrataError/Code/tooLarge`` for one longer than ``maximumKeySize``,
        ///   ``Strata/StrataError/Code/queryNotSupported`` for a query that names no single key.
        func key(of query: any Query) throws -> String {
            guard let query = query as? any KeyedQuery else {
                throw StrataError.queryNotSupported(query, by: Self.self)
            }
            return try checkedKey(query.key)
        }

        /// `key` in its canonical (NFC) form, after the checks of ``key(of:)``.
        func checkedKey(_ key: String) throws -> String {
            guard !key.isEmpty else { throw StrataError(.invalidArgument, "The empty key names no entry") }
            guard !key.utf8.contains(0) else {
                throw StrataError(.invalidArgument, "A key with U+0000 cannot be stored in PostgreSQL text")
            }
            let canonical = StoreKey.canonical(key)
            guard canonical.utf8.count <= maximumKeySize else { throw keyTooLarge(canonical.utf8.count) }
            return canonical
        }

        /// Bindings of one text.
        static func bindings(_ key: String) -> PostgresBindings {
            var binds = PostgresBindings()
            binds.append(key)
            return binds
        }

        /// Bindings of one text array.
        static func bindings(_ keys: [String]) -> PostgresBindings {
            var binds = PostgresBindings()
            binds.append(keys)
            return binds
        }

        /// The value of a row's JSON text.
        static func decode(_ json: String) throws -> Value {
            do {
                return try JSONDecoder().decode(Value.self, from: Data(json.utf8))
            } catch {
                throw StrataError.serialization(error, "A stored value no longer decodes as \(Value.self)")
            }
        }
    }

    /// The validator a ``PostgresDataSource`` gives each entry it reads (as ``Strata/EntryMetadata/eTag``): the row's
    /// version, and the change-feed epoch the read began in.
    ///
    /// A ``PostgresCoherentCache`` serves an entry only while its epoch is the feed's current one and no newer version
    /// of its key was announced. A read made while the feed is not listening carries no tag, and is never served from
    /// the cache.
    struct PostgresEntryTag: Hashable, Sendable, CustomStringConvertible {
        var epoch: UInt64
        var version: Int64

        /// `pg:<epoch>:<version>`.
        var description: String { "pg:\(epoch):\(version)" }

        init(epoch: UInt64, version: Int64) {
            self.epoch = epoch
            self.version = version
        }

        /// Parses ``description``; `nil` for any other text. Split at the `:` bytes, as the codebase reads any text it
        /// did not make.
        init?(_ text: String?) {
            guard let parts = text?.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false),
                parts.count == 3, parts[0].elementsEqual("pg".utf8),
                let epoch = UInt64(Substring(parts[1])), let version = Int64(Substring(parts[2]))
            else { return nil }
            self.init(epoch: epoch, version: version)
        }
    }
#endif
