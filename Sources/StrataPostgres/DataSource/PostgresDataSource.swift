#if Postgres
    import PostgresNIO
    import Strata

    /// A data source over one PostgreSQL table: the shared main source of a fleet of servers, with a change feed
    /// (`LISTEN` / `NOTIFY`) that keeps each server's memory cache coherent.
    ///
    /// ## The table
    ///
    /// Each source owns one table, created (with its sequence, trigger function and trigger) on first use when it is
    /// missing; a table of that name whose columns are not these (another program's) is left as it is, and every call
    /// fails with ``Strata/StrataError/Code/invalidArgument``:
    ///
    /// | column | type | meaning |
    /// |---|---|---|
    /// | `key` | `text COLLATE "C" PRIMARY KEY` | the entry's key (the NFC form of the query's key) |
    /// | `value` | `jsonb NOT NULL` | the value, encoded with `JSONEncoder` |
    /// | `updated_at` | `timestamptz NOT NULL` | when the value was last written (the entry's `storedAt`) |
    /// | `version` | `bigint NOT NULL` | from the sequence `<table>_version`: every write gets a new, larger one |
    ///
    /// A row trigger sends `NOTIFY "strata:<table>", '<version>:<p|d>:<key>'` for every insert, update and delete, so
    /// every write announces itself, whoever makes it (this source, another instance, `psql`). The channel is Strata's
    /// own: another program's `NOTIFY` on a channel named as the table is not heard, and a payload not in that shape
    /// is ignored. A key too long for a notification (over 7,000 bytes) is announced as a change of every key.
    ///
    /// ## Queries
    ///
    /// ``Strata/KeyedQuery`` (``Strata/KeyQuery``, ``Strata/IdQuery``), ``Strata/MultiKeyedQuery``
    /// (``Strata/IdsQuery``), ``Strata/AllObjectsQuery`` and ``Strata/PaginationOffsetLimitQuery`` (in the byte order of
    /// the keys, `COLLATE "C"`), any other ``Strata/KeyListingQuery``, and ``PostgresFilterQuery``: the hook for a
    /// condition of your own on the columns. Values and keys always travel as bound parameters; the table name, the
    /// only identifier written into SQL text, is checked when the source is made.
    ///
    /// `putAll` writes all its values in one statement, so one transaction: all of them or none. A version you read
    /// (``put(_:forKey:ifVersion:)``) makes a write conditional, for optimistic concurrency.
    ///
    /// ## Errors
    ///
    /// Every failure is a ``Strata/StrataError`` with PostgreSQL's own error (`PSQLError`) as its underlying error:
    /// a lost or refused connection and a statement timeout are ``Strata/StrataError/Code/network`` (retryable; a
    /// write whose connection was lost or timed out once it may have been sent says it may have taken effect,
    /// ``Strata/StrataError/mayHaveTakenEffect``, as its statement may have committed); a
    /// unique violation and a failed ``put(_:forKey:ifVersion:)`` are ``Strata/StrataError/Code/conflict``; a
    /// serialization failure and a deadlock are ``Strata/StrataError/Code/unexpectedResponse`` and retryable (the
    /// write may simply be repeated: no other writer's copy is in the way), as are the server's other passing
    /// conditions (a failover's demoted primary, which is `network`; a full disk; a lock timeout); a call through a
    /// client whose `run()` ended is ``Strata/StrataError/Code/invalidArgument``, not retryable; data PostgreSQL refuses (a `\u0000` in a JSON string, say) and a value
    /// that no longer decodes are ``Strata/StrataError/Code/dataSerialization``. A table dropped behind the source's
    /// back is created again on the next call of any source of it, which announces the whole table as changed (so does
    /// the table's first creation: after both the table and its sequence were dropped, a source opened afterwards
    /// cannot tell the two apart, and an empty table's announcement costs the caches nothing).
    ///
    /// ## Bounded reads and writes
    ///
    /// A value's JSON text is at most ``maximumValueSize`` bytes (64 MiB by default), and a read answers at most
    /// ``maximumRowCount`` rows (100,000 by default); past either the call fails with
    /// ``Strata/StrataError/Code/tooLarge``, so a row another program wrote, or a table that grew, cannot exhaust the
    /// memory of the servers reading it. The server enforces both: it sends `NULL` (and the length) in place of a
    /// longer value, and a read asks for one row more than the bound (`LIMIT`), so neither is ever sent whole. Every
    /// read of several rows is bounded: ``Strata/AllObjectsQuery``, ``Strata/IdsQuery``, a page (its own limit too), a
    /// ``PostgresFilterQuery``, and the key listing of a ``Strata/KeyListingQuery`` (its `delete` too). A value is
    /// measured as PostgreSQL prints `jsonb`, which can be longer than the JSON written (a space after each `:` and
    /// `,`, numbers in full): a write is refused before it is sent when its own JSON is longer than the bound, and by
    /// the server, in the statement that writes (nothing is written), when the value as `jsonb` prints longer, so
    /// every value written can be read.
    ///
    /// A key is at most ``maximumKeySize`` bytes (2,048 by default): a longer key is refused before it is sent, and a
    /// listing or a read of several rows that meets a longer key another program wrote is refused (the server sends
    /// `NULL` in its place), both with ``Strata/StrataError/Code/tooLarge``. One `put` or `putAll` sends at most
    /// ``maximumWriteSize`` bytes of keys and JSON (256 MiB by default), whatever the count of its values, and one
    /// read holds at most ``maximumReadSize`` (256 MiB by default), counted as its rows arrive: a listing of many large
    /// values fails once past it, and its connection is closed (the pool replaces it), so the rows after are neither
    /// held nor waited for by the next call.
    ///
    /// ## Bounded waits
    ///
    /// No call waits longer than ``callTimeout`` (five seconds by default) for its answer, and a second more for the
    /// error postgres-nio ends it with. postgres-nio's pool keeps a call waiting while it cannot connect, and fails its
    /// waiting calls only after 60 seconds of failed attempts; a statement already sent waits for its answer however
    /// long the server takes, and one sent on a connection as it closes may never be answered. So each call races a
    /// timer: when the timer wins, a call still waiting for a connection leaves the pool's queue, a statement in flight
    /// has its connection closed (the pool replaces it), and the call fails with a retryable
    /// ``Strata/StrataError/Code/network`` error whose underlying error is what postgres-nio threw as the call ended
    /// (when it ended within that second). A cancelled task ends its call with ``Strata/StrataError/Code/cancelled``
    /// once the call has let go of its connection (at most a second after). Neither waits longer for postgres-nio to
    /// let go of the statement. Set the client's `options.connectTimeout` (ten seconds in postgres-nio) below
    /// ``callTimeout``, so that one attempt to reach a host that does not answer does not outlast the calls waiting for
    /// it.
    ///
    /// After an outage the pool connects again by itself. It tries again after a pause that starts at 100 ms and grows
    /// by a quarter with each failed attempt (at most a minute), so once the server is back, the next attempt comes
    /// within about a quarter of the time the pool has been failing, plus 100 ms. Until then calls fail with `network`
    /// at their call timeout (at once, after a minute of failed attempts); a call waiting when the pool connects is
    /// served. The change feed listens again on one of the new connections and begins a new epoch.
    ///
    /// ## Running it
    ///
    /// The source uses a `PostgresClient` you make and run (its pool serves every statement), and its change feed
    /// runs in ``run()``, which holds one connection of that pool for `LISTEN` for as long as it runs: the pool's
    /// `maximumConnections` (20 by default) must exceed the number of feeds the client serves plus the calls you want
    /// to run at once.
    ///
    /// ```swift
    /// // Not compiled: needs the trait Postgres and a running server.
    /// let client = PostgresClient(configuration: configuration)
    /// let users = try PostgresDataSource<User>(client: client, table: "users")
    /// let repository = CacheRepository(main: users, cache: users.coherentCache(MemoryDataSource<User>()))
    /// await withDiscardingTaskGroup { group in
    ///     group.addTask { await client.run() }
    ///     group.addTask { await users.run() }
    ///     // … serve requests with `repository` …
    ///     group.cancelAll()  // both run until cancelled
    /// }
    /// ```
    public struct PostgresDataSource<Value: Codable & Sendable>: DataSource, Sendable {
        /// The client whose pool runs every statement.
        public let client: PostgresClient

        /// The table's name.
        public let table: String

        /// The key under which `putAll(_:in: AllObjectsQuery())` stores each value; `nil` refuses such a write.
        public let keyOfValue: (@Sendable (Value) -> String)?

        /// The longest one call may take, from asking the pool for a connection to the last row: past it the call
        /// fails with a retryable ``Strata/StrataError/Code/network`` error (see ``PostgresDataSource``).
        public let callTimeout: Duration

        /// The longest value's JSON text, in bytes, the source writes or reads, as PostgreSQL prints `jsonb`: a larger
        /// value is refused (before it is sent when its encoded JSON is already larger), and a larger row (written by
        /// another program) is not sent by the server; both are
        /// ``Strata/StrataError/Code/tooLarge`` (see ``PostgresDataSource``). 64 MiB by default.
        public let maximumValueSize: Int

        /// The most rows one read answers: a read that would answer more fails with
        /// ``Strata/StrataError/Code/tooLarge`` (see ``PostgresDataSource``). 100,000 by default.
        public let maximumRowCount: Int

        /// The longest key, in UTF-8 bytes of its canonical (NFC) form, the source writes, reads or lists: a longer key
        /// given to any call is refused before anything is sent, and a read that meets a longer key another program
        /// wrote is refused (the server sends `NULL` in its place); both are ``Strata/StrataError/Code/tooLarge``.
        /// 2,048 by default, under the largest entry PostgreSQL's index of the keys takes (about 2,700 bytes; more for a
        /// key that compresses): with a larger bound, a key the index cannot take is `tooLarge` from the server.
        public let maximumKeySize: Int

        /// The most bytes one `put` or `putAll` sends, its keys and its values' JSON together: a larger write is
        /// refused with ``Strata/StrataError/Code/tooLarge`` before anything is sent. 256 MiB by default (PostgreSQL
        /// takes no parameter over 1 GB). Without it, a `putAll` was bounded only by ``maximumValueSize`` for each of
        /// its values, however many.
        public let maximumWriteSize: Int

        /// The most bytes of keys and JSON one read holds, counted as its rows arrive: a read that would hold more (a
        /// listing of many large values, each under ``maximumValueSize``) fails with
        /// ``Strata/StrataError/Code/tooLarge``, and its connection is closed, so the rows after are never held. 256 MiB
        /// by default.
        public let maximumReadSize: Int

        let sql: PostgresStatements
        let schema: PostgresSchema
        let feed: PostgresChangeFeed

        /// Creates a source over `table`, made when first used if it is missing.
        ///
        /// - Parameters:
        ///   - client: A client you run (`client.run()`) for as long as the source is used.
        ///   - table: The table's name: a lowercase letter or `_`, then up to 40 lowercase letters, digits or `_`.
        ///   - keyOfValue: The key of a value, for `putAll(_:in: AllObjectsQuery())`.
        ///   - callTimeout: The longest one call may take, above zero; five seconds by default. Keep it above the
        ///   longest statement you expect (a large `putAll`) and, when you set one, above the server's
        ///   `statement_timeout`.
        ///   - feed: How the change feed behaves.
        ///   - maximumValueSize: The longest value's JSON text, in bytes, the source writes or reads; 64 MiB by default.
        ///   - maximumRowCount: The most rows one read answers; 100,000 by default.
        ///   - maximumKeySize: The longest key, in UTF-8 bytes, the source writes, reads or lists; 2,048 by default.
        ///   - maximumWriteSize: The most bytes of keys and JSON one write sends; 256 MiB by default.
        ///   - maximumReadSize: The most bytes of keys and JSON one read holds; 256 MiB by default.
        /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for a table name outside those rules, for a call
        ///   timeout of zero or less, and for a limit below 1.
        public init(
            client: PostgresClient,
            table: String,
            keyOfValue: (@Sendable (Value) -> String)? = nil,
            callTimeout: Duration = .seconds(5),
            feed: PostgresChangeFeedConfiguration = PostgresChangeFeedConfiguration(),
            maximumValueSize: Int = 64 * 1024 * 1024,
            maximumRowCount: Int = 100_000,
            maximumKeySize: Int = 2_048,
            maximumWriteSize: Int = 256 * 1024 * 1024,
            maximumReadSize: Int = 256 * 1024 * 1024
        ) throws {
            self.client = client
            self.table = try PostgresStatements.checkTableName(table)
            self.keyOfValue = keyOfValue
            guard callTimeout > .zero else {
                throw StrataError(.invalidArgument, "callTimeout is above zero; got \(callTimeout)")
            }
            self.callTimeout = PostgresDeadline(callTimeout).limit
            let limits = [maximumValueSize, maximumRowCount, maximumKeySize, maximumWriteSize, maximumReadSize]
            guard limits.allSatisfy({ $0 >= 1 }) else {
                throw StrataError(
                    .invalidArgument,
                    "maximumValueSize, maximumRowCount, maximumKeySize, maximumWriteSize and maximumReadSize are at "
                        + "least 1; got \(limits)"
                )
            }
            self.maximumValueSize = maximumValueSize
            self.maximumRowCount = maximumRowCount
            self.maximumKeySize = maximumKeySize
            self.maximumWriteSize = maximumWriteSize
            self.maximumReadSize = maximumReadSize
            self.sql = PostgresStatements(
                table: table,
                maximumValueSize: maximumValueSize,
                maximumRowCount: maximumRowCount,
                maximumKeySize: maximumKeySize
            )
            self.schema = PostgresSchema()
            self.feed = PostgresChangeFeed(
                configuration: feed,
                deadline: PostgresDeadline(callTimeout),
                maximumKeySize: maximumKeySize
            )
        }

        /// ``Strata/DataOrigin/network``: the values live in a database server.
        public var origin: DataOrigin { .network }

        /// Returns the changes of one key, or of every key, as the change feed hears them: the writes of every
        /// instance, this one included, and ``Strata/DataChange/invalidateAll`` whenever the feed (re)connects (an
        /// epoch begins). A change of a key longer than ``maximumKeySize`` (written by another program) is not told.
        ///
        /// - Parameter key: The key to observe; `nil` for every key.
        public func changes(forKey key: String?) -> AsyncStream<DataChange> {
            feed.broadcaster.changes(forKey: key.map(StoreKey.canonical), bufferingNewest: 64)
        }
    }
#endif
