#if Postgres
    import PostgresNIO
    import Strata

    /// The SQL text of one table's statements: the table's name is the only identifier written into it, the
    /// source's limits (integers) the only numbers, and every value is a bound parameter.
    struct PostgresStatements: Sendable {
        /// The table's name, as written into a string (the lock's name).
        let table: String
        /// The channel of the table's notifications: `strata:<table>`, so that another program's `NOTIFY` on a channel
        /// named as the table is not taken for one of the table's. At most 48 bytes (the longest table name is 41),
        /// under PostgreSQL's 63, and of the table name's characters and `:` only, so it needs no escaping, quoted
        /// (`LISTEN "strata:<table>"`, as postgres-nio writes it) or as a string (`pg_notify('strata:<table>', …)`).
        let channel: String
        /// The table's identifier, quoted: every statement names the table so.
        let quoted: String
        /// The table's version sequence. This name and the function and trigger names below are quoted identifiers like
        /// ``quoted``, made when asked: the statements that name them are themselves made when asked.
        var sequence: String { Self.identifier(table, "_version") }
        /// The function that announces a row's change on ``channel``.
        var function: String { Self.identifier(table, "_notify") }
        /// The trigger that calls ``function``, of its name.
        var trigger: String { function }
        /// The function that gives a row inserted, or updated without a new version, one.
        var stampFunction: String { Self.identifier(table, "_stamp") }
        /// The trigger that calls ``stampFunction``, of its name.
        var stampTrigger: String { stampFunction }
        /// The trigger that announces a `TRUNCATE` as a change of every key.
        var truncateTrigger: String { Self.identifier(table, "_truncate") }
        /// The longest value's JSON text a read sends and a write stores, in bytes.
        let maximumValueSize: Int
        /// The most rows a read asks for: one more than the most it answers, to tell a result beyond the bound.
        let rowLimit: Int
        /// The longest key a read sends, in bytes: a longer one is sent as `NULL`.
        let maximumKeySize: Int

        init(table: String, maximumValueSize: Int, maximumRowCount: Int, maximumKeySize: Int) {
            self.table = table
            channel = Self.channelPrefix + table
            quoted = Self.identifier(table)
            self.maximumValueSize = maximumValueSize
            self.maximumKeySize = maximumKeySize
            let (limit, overflow) = maximumRowCount.addingReportingOverflow(1)
            rowLimit = overflow ? Int.max : limit
        }

        /// The quoted SQL identifier of `table` followed by `suffix`: the table's name passed
        /// ``checkTableName(_:)`` (`[a-z_][a-z0-9_]{0,40}`), so it holds no `"` to double.
        private static func identifier(_ table: String, _ suffix: String = "") -> String {
            "\"\(table)\(suffix)\""
        }

        /// The SQL condition that the table, its sequence, its `version` column's default and its three triggers are in
        /// place, the triggers enabled in one of the `triggersEnabled` states (`'A'` always, `'O'` in origin sessions)
        /// and their functions of schema `fromSchema` or later (the number their comment gives, ``schemaVersion``).
        private func schemaInPlace(triggersEnabled: String, fromSchema: Int) -> String {
            """
            to_regclass('\(quoted)') IS NOT NULL AND to_regclass('\(sequence)') IS NOT NULL
                AND (SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass('\(quoted)')
                    AND tgenabled IN (\(triggersEnabled))
                    AND tgname IN ('\(table)_notify', '\(table)_stamp', '\(table)_truncate')) = 3
                AND COALESCE(substring(obj_description(to_regprocedure('\(function)()'), 'pg_proc')
                    FROM '^strata schema ([0-9]{1,9})$')::integer, 0) >= \(fromSchema)
                AND EXISTS (SELECT FROM pg_attribute WHERE attrelid = to_regclass('\(quoted)')
                    AND attname = 'version' AND atthasdef)
            """
        }

        /// What every table's channel begins with.
        static let channelPrefix = "strata:"

        /// Checks a table name: it is written into SQL text, so only `[a-z_][a-z0-9_]{0,40}` passes.
        static func checkTableName(_ name: String) throws -> String {
            let bytes = Array(name.utf8)
            let valid =
                (1...41).contains(bytes.count)
                && bytes.enumerated().allSatisfy { index, byte in
                    byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                        || (index > 0 && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte))
                }
            guard valid else {
                throw StrataError(
                    .invalidArgument,
                    "A table name is [a-z_][a-z0-9_]{0,40}; got \(name.debugDescription)"
                )
            }
            return name
        }

        /// The version of the schema this code makes: raise it with the functions or the triggers.
        static let schemaNumber = 9

        /// What the notifying function's comment says once this version of the schema is in place: the schema statement
        /// changes nothing while it, or a later version's, does (an older instance of a fleet mid-deploy never puts its
        /// own older triggers back over a newer one's).
        static let schemaVersion = "strata schema \(schemaNumber)"

        /// Creates the sequence, the table, the trigger functions and the triggers when missing, of an earlier version
        /// (``schemaVersion``) or with a trigger not enabled always, under an advisory lock (so instances starting
        /// together do not race), in one statement; changes nothing when they are in place, and refuses a table of the
        /// name whose columns are not Strata's (``hasStrataColumns``) with `duplicate_table`, before any change.
        ///
        /// - Parameter announcingRemade: Whether making the table or its sequence (or both, a first creation too)
        ///   announces every key as changed; `false` for a caller that announces it itself.
        func createSchema(announcingRemade: Bool) -> String {
            let remade =
                announcingRemade
                ? "to_regclass('\(quoted)') IS NULL OR to_regclass('\(sequence)') IS NULL" : "false"
            return """
                DO $strata$
                DECLARE
                    found text;
                    remade boolean;
                BEGIN
                    PERFORM pg_advisory_xact_lock(hashtext('strata:\(table)'));
                    -- Tables and sequences share one namespace: `x` and `x_version` would each find the other's name
                    -- taken (the sequence of `x` is `x_version`), and every statement of the second would fail.
                    IF EXISTS (SELECT 1 FROM pg_class WHERE relname = '\(table)_version'
                        AND relnamespace = current_schema()::regnamespace AND relkind <> 'S') THEN
                        RAISE EXCEPTION 'the table \(table) needs the name \(table)_version for its version sequence, and another table has it'
                            USING ERRCODE = 'duplicate_table';
                    END IF;
                    IF EXISTS (SELECT 1 FROM pg_class WHERE relname = '\(table)'
                        AND relnamespace = current_schema()::regnamespace AND relkind <> 'r') THEN
                        RAISE EXCEPTION 'the name \(table) is the version sequence of another Strata table'
                            USING ERRCODE = 'duplicate_table';
                    END IF;
                    -- A table of this name with other columns (another program's) is left as it is: Strata's triggers
                    -- would fail every write its program makes, and every statement of the source would fail.
                    IF to_regclass('\(quoted)') IS NOT NULL AND NOT (\(hasStrataColumns)) THEN
                        SELECT string_agg(format('%I %s%s', attname, format_type(atttypid, atttypmod),
                            CASE WHEN attnotnull THEN ' NOT NULL' ELSE '' END), ', ' ORDER BY attnum)
                            INTO found FROM pg_attribute
                            WHERE attrelid = to_regclass('\(quoted)') AND attnum > 0 AND NOT attisdropped;
                        RAISE EXCEPTION 'the table \(table) has the columns (%), not the columns of a Strata table (key text '
                            'unique, of a deterministic collation, value jsonb, updated_at timestamptz and version bigint, NOT NULL): '
                            'it is left as it is',
                            found USING ERRCODE = 'duplicate_table';
                    END IF;
                    -- Nothing to change when the table, its sequence, its three triggers (enabled always: one another
                    -- program disabled, or set back to fire in origin sessions only, as `pg_restore --disable-triggers`
                    -- leaves it, is repaired) and this version of their functions are in place: no lock is taken on the
                    -- table, and a role that may only read and write its rows (neither own it nor create in its schema)
                    -- uses it.
                    IF \(schemaInPlace(triggersEnabled: "'A'", fromSchema: Self.schemaNumber))
                    THEN
                        RETURN;
                    END IF;
                    -- A role that does not own the table cannot repair it: it uses the table as it is when the table,
                    -- its sequence, its version default and its three triggers are there, firing in every origin
                    -- session ('O', as a restore leaves them, or always) with functions of schema 8 or later (the
                    -- previous version, whose writes announce on the same channel), and the owner's next source brings
                    -- them up to date. (Refused, it failed every call of an app that may only read and write rows,
                    -- after a restore or an upgrade.) A trigger disabled, or functions older than that, still fail it.
                    IF \(schemaInPlace(triggersEnabled: "'A', 'O'", fromSchema: 8))
                        AND NOT pg_has_role(current_user,
                            (SELECT relowner FROM pg_class WHERE oid = to_regclass('\(quoted)')), 'USAGE')
                    THEN
                        RETURN;
                    END IF;
                    -- A table or a sequence made again after another program dropped it (or both) leaves every other
                    -- source's cache holding rows that are gone or versions the new sequence may give again: every key
                    -- is announced as changed once they are in place, by whichever source makes them (one opened after
                    -- the drop too, which no call of its own told). Both dropped looks like a first creation, so a first
                    -- creation announces too: no cache can hold a row of a table that never was, so it costs one empty
                    -- epoch. A source that finds them missing in a call announces it itself.
                    remade := \(remade);
                    -- A sequence dropped from under its table (another program's DROP SEQUENCE ... CASCADE, which drops the
                    -- column's default too) is made again past every version of the table, and the default given back: a
                    -- key's versions only grow, and an insert takes one.
                    IF to_regclass('\(sequence)') IS NULL THEN
                        CREATE SEQUENCE \(sequence);
                        IF to_regclass('\(quoted)') IS NOT NULL THEN
                            PERFORM setval('\(sequence)', max(version)) FROM \(quoted);
                        END IF;
                    END IF;
                    CREATE TABLE IF NOT EXISTS \(quoted) (
                        key text COLLATE "C" PRIMARY KEY,
                        value jsonb NOT NULL,
                        updated_at timestamptz NOT NULL DEFAULT now(),
                        version bigint NOT NULL DEFAULT nextval('\(sequence)')
                    );
                    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = to_regclass('\(quoted)')
                        AND attname = 'version' AND atthasdef)
                    THEN
                        ALTER TABLE \(quoted) ALTER COLUMN version SET DEFAULT nextval('\(sequence)');
                    END IF;
                    -- The reads go in the keys' byte order (COLLATE "C"): an index in that order answers a page without
                    -- sorting the table. A new table's key is of that collation; a table of an earlier version, whose key
                    -- has only the database collation's index, gets one (named by PostgreSQL, so it takes no name another
                    -- relation may have).
                    IF NOT EXISTS (SELECT FROM pg_index WHERE indrelid = to_regclass('\(quoted)') AND indpred IS NULL
                        AND indexprs IS NULL AND indcollation[0] = 'pg_catalog."C"'::regcollation::oid
                        AND indkey[0] = (SELECT attnum FROM pg_attribute
                            WHERE attrelid = to_regclass('\(quoted)') AND attname = 'key'))
                    THEN
                        CREATE INDEX ON \(quoted) (key COLLATE "C");
                    END IF;
                    -- Another program's UPDATE that leaves the version as it was, lowers it (a restore) or empties it
                    -- still makes a new, larger version: a cache must never vouch for the row it held before, nor a
                    -- conditional write find a version again. After an update that set one past the sequence, the next
                    -- is one more than it. Another program's INSERT that gives a version (rows restored from a backup)
                    -- takes a new one too: the version it gives may be one the key had before it was deleted, which a
                    -- writer still holding it would find again. Every insert takes one, the default's value left unused
                    -- (the default cannot be told from a given version; versions may have gaps). A version at the largest
                    -- bigint (another program's) stays there: one more would fail every later write of the key.
                    CREATE OR REPLACE FUNCTION \(stampFunction)() RETURNS trigger LANGUAGE plpgsql AS $stamp$
                    BEGIN
                        IF TG_OP = 'INSERT' THEN
                            NEW.version := nextval('\(sequence)');
                            RETURN NEW;
                        END IF;
                        IF NEW.version IS NULL OR NEW.version <= OLD.version THEN
                            NEW.version := greatest(nextval('\(sequence)'), \(Self.versionAfter("OLD.version")));
                            IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
                                NEW.updated_at := now();
                            END IF;
                        END IF;
                        RETURN NEW;
                    END
                    $stamp$;
                    CREATE OR REPLACE TRIGGER \(stampTrigger) BEFORE INSERT OR UPDATE ON \(quoted)
                        FOR EACH ROW EXECUTE FUNCTION \(stampFunction)();
                    CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $notify$
                    DECLARE
                        changed text;
                        operation text := 'p';
                        changed_version bigint;
                    BEGIN
                        IF TG_OP = 'TRUNCATE' THEN
                            changed := '';
                            operation := 'a';
                            changed_version := nextval('\(sequence)');
                        ELSIF TG_OP = 'DELETE' THEN
                            changed := OLD.key;
                            operation := 'd';
                            -- Past the row's version, which another program may have raised past the sequence (or a
                            -- session's cached sequence values lag): a feed keeps the larger version it heard, and a
                            -- delete announced below the row's would leave a cache vouching for the deleted row.
                            changed_version := greatest(nextval('\(sequence)'), \(Self.versionAfter("OLD.version")));
                        ELSE
                            changed := NEW.key;
                            changed_version := NEW.version;
                            -- A key renamed by another program: the old key is gone.
                            IF TG_OP = 'UPDATE' AND OLD.key IS DISTINCT FROM NEW.key THEN
                                IF octet_length(OLD.key) > 7000 THEN
                                    PERFORM pg_notify('\(channel)', nextval('\(sequence)')::text || ':a:');
                                ELSE
                                    PERFORM pg_notify(
                                        '\(channel)',
                                        greatest(nextval('\(sequence)'), \(Self.versionAfter("OLD.version")))::text
                                            || ':d:' || OLD.key
                                    );
                                END IF;
                            END IF;
                        END IF;
                        IF octet_length(changed) > 7000 THEN
                            changed := '';
                            operation := 'a';
                        END IF;
                        PERFORM pg_notify('\(channel)', changed_version::text || ':' || operation || ':' || changed);
                        RETURN NULL;
                    END
                    $notify$;
                    CREATE OR REPLACE TRIGGER \(trigger) AFTER INSERT OR UPDATE OR DELETE ON \(quoted)
                        FOR EACH ROW EXECUTE FUNCTION \(function)();
                    CREATE OR REPLACE TRIGGER \(truncateTrigger) AFTER TRUNCATE ON \(quoted)
                        FOR EACH STATEMENT EXECUTE FUNCTION \(function)();
                    -- Fired in every session, also one that applies logical replication or sets
                    -- session_replication_role to replica (where triggers left at their default do not fire): a write
                    -- that is not stamped nor announced would leave every cache serving the row it held.
                    ALTER TABLE \(quoted) ENABLE ALWAYS TRIGGER \(stampTrigger);
                    ALTER TABLE \(quoted) ENABLE ALWAYS TRIGGER \(trigger);
                    ALTER TABLE \(quoted) ENABLE ALWAYS TRIGGER \(truncateTrigger);
                    COMMENT ON FUNCTION \(function)() IS '\(Self.schemaVersion)';
                    IF remade THEN
                        PERFORM pg_notify('\(channel)', nextval('\(sequence)')::text || ':a:');
                    END IF;
                END
                $strata$
                """
        }

        /// The version after `version` (SQL), as SQL: one more, but the largest `bigint` for itself, so that another
        /// program's version at the top never makes a trigger overflow (`22003`, every later write of the key failing).
        static func versionAfter(_ version: String) -> String {
            "least(\(version), \(Int64.max - 1)) + 1"
        }

        /// Whether the existing table has Strata's columns, as a condition: `key text`, `value jsonb`,
        /// `updated_at timestamptz` and `version bigint`, all `NOT NULL`; a unique index of the key alone (the upsert's
        /// `ON CONFLICT (key)`); a key and that index of a deterministic collation (under a case-insensitive one, a
        /// write of `A` replaces the row of `a` while the notification names `A`, and the caches keep `a`); and no other
        /// `NOT NULL` column a write would leave empty.
        private var hasStrataColumns: String {
            """
            (SELECT count(*) FROM pg_attribute AS a
                JOIN (VALUES ('key', 'text'::regtype), ('value', 'jsonb'), ('updated_at', 'timestamptz'),
                    ('version', 'bigint')) AS strata (name, type) ON a.attname = strata.name AND a.atttypid = strata.type
                WHERE a.attrelid = to_regclass('\(quoted)') AND a.attnotnull AND NOT a.attisdropped) = 4
            AND EXISTS (SELECT FROM pg_index WHERE indrelid = to_regclass('\(quoted)') AND indisunique AND indimmediate
                AND indnkeyatts = 1 AND indpred IS NULL AND indexprs IS NULL
                AND (SELECT collisdeterministic FROM pg_collation WHERE oid = indcollation[0]) IS NOT FALSE
                AND indkey[0] = (SELECT attnum FROM pg_attribute
                    WHERE attrelid = to_regclass('\(quoted)') AND attname = 'key'))
            AND NOT EXISTS (SELECT FROM pg_attribute AS a JOIN pg_collation AS c ON c.oid = a.attcollation
                WHERE a.attrelid = to_regclass('\(quoted)') AND a.attname = 'key' AND NOT c.collisdeterministic)
            AND NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = to_regclass('\(quoted)') AND attnum > 0
                AND NOT attisdropped AND attnotnull AND NOT atthasdef AND attidentity = '' AND attgenerated = ''
                AND attname NOT IN ('key', 'value', 'updated_at', 'version'))
            """
        }

        /// Whether the table or its version sequence is missing, as one boolean.
        var isMissing: String { "SELECT to_regclass('\(quoted)') IS NULL OR to_regclass('\(sequence)') IS NULL" }

        /// Announces a change of every key (after the table was created again).
        var announceAll: String { "SELECT pg_notify('\(channel)', nextval('\(sequence)')::text || ':a:')" }

        var selectOne: String { selectRows(where: "key = $1") }
        var selectMany: String { selectRows(where: "key = ANY($1::text[])") }
        var selectAll: String { selectRows(ordered: true) }
        var selectPage: String { selectRows(ordered: true, offset: "$1", limit: "least($2::bigint, \(rowLimit))") }
        var selectKeys: String {
            "SELECT \(boundedKey), octet_length(key) FROM \(quoted) ORDER BY key COLLATE \"C\" LIMIT \(rowLimit)"
        }
        /// The key, or `NULL` when it is longer than ``maximumKeySize``.
        private var boundedKey: String { "CASE WHEN octet_length(key) > \(maximumKeySize) THEN NULL ELSE key END" }
        /// A read of the rows of a ``PostgresFilterQuery``'s condition, which ends its own line: a `--` comment it
        /// ends with comments nothing more out.
        func selectWhere(_ condition: String) -> String { selectRows(where: "(\(condition)\n)", ordered: true) }

        /// A read of rows as `(key, json, size, version, updated_at)`, at most ``rowLimit`` of them (or `limit`):
        /// `json` is the value's JSON text, or `NULL` when its `size` in bytes is over ``maximumValueSize``, so the
        /// server never sends a larger value; `key` is `NULL` when it is longer than ``maximumKeySize``.
        ///
        /// The inner query makes each value's text once (a subquery with a `LIMIT` is not merged into the outer one);
        /// the outer one measures it.
        ///
        /// - Parameters:
        ///   - condition: The rows to read; all of them when `nil`.
        ///   - ordered: Whether the rows come in the byte order of the keys (`COLLATE "C"`).
        ///   - offset: How many rows to skip, when any.
        ///   - limit: The `LIMIT`, when it is not ``rowLimit``.
        private func selectRows(
            where condition: String? = nil,
            ordered: Bool = false,
            offset: String? = nil,
            limit: String? = nil
        ) -> String {
            let filter = condition.map { "WHERE \($0) " } ?? ""
            let order = ordered ? "ORDER BY key COLLATE \"C\" " : ""
            let skip = offset.map { "OFFSET \($0) " } ?? ""
            return """
                SELECT \(boundedKey), CASE WHEN octet_length(json) > \(maximumValueSize) THEN NULL ELSE json END, \
                octet_length(json), version, updated_at
                FROM (SELECT key, value::text AS json, version, updated_at FROM \(quoted) \
                \(filter)\(order)\(skip)LIMIT \(limit ?? String(rowLimit))) AS bounded \(order)
                """
        }

        /// Inserts or replaces the rows of parallel arrays of keys and JSON texts, in one statement.
        var upsert: String {
            boundedWrite(
                of: "SELECT key, value::jsonb AS value FROM unnest($1::text[], $2::text[]) AS written(key, value)",
                """
                INSERT INTO \(quoted) (key, value) SELECT key, value FROM written WHERE NOT EXISTS (SELECT FROM refused)
                ON CONFLICT (key) DO UPDATE
                    SET value = EXCLUDED.value, updated_at = now(), version = nextval('\(sequence)')
                RETURNING version
                """
            )
        }

        /// Replaces the row of `$1` only while its version is `$3`.
        var conditionalUpdate: String {
            boundedWrite(
                of: "SELECT $1::text AS key, $2::jsonb AS value",
                """
                UPDATE \(quoted) SET value = written.value, updated_at = now(), version = nextval('\(sequence)')
                FROM written WHERE \(quoted).key = written.key AND \(quoted).version = $3
                    AND NOT EXISTS (SELECT FROM refused)
                RETURNING \(quoted).version
                """
            )
        }

        /// Inserts the row of `$1` only when there is none.
        var insertNew: String {
            boundedWrite(
                of: "SELECT $1::text AS key, $2::jsonb AS value",
                """
                INSERT INTO \(quoted) (key, value) SELECT key, value FROM written WHERE NOT EXISTS (SELECT FROM refused)
                ON CONFLICT (key) DO NOTHING RETURNING version
                """
            )
        }

        /// A write whose rows are `(version, NULL)`, one per row written, or, when a value's `jsonb` as PostgreSQL
        /// prints it is longer than ``maximumValueSize``, the one row `(NULL, size)` of the longest and nothing written.
        ///
        /// The server measures the text a read measures (a client's compact JSON can be shorter: `jsonb` prints a
        /// space after each `:` and `,`), in the statement that writes, so a value written is a value that reads.
        ///
        /// - Parameters:
        ///   - values: The rows to write, as `(key, value jsonb)`: the common table `written`.
        ///   - write: The statement writing `written` while the common table `refused` is empty, `RETURNING version`.
        private func boundedWrite(of values: String, _ write: String) -> String {
            """
            WITH written AS (\(values)),
            refused AS (
                SELECT max(octet_length(value::text)) AS size FROM written
                HAVING max(octet_length(value::text)) > \(maximumValueSize)
            ),
            stored AS (\(write))
            SELECT NULL::bigint, size FROM refused UNION ALL SELECT version, NULL::integer FROM stored
            """
        }

        var deleteMany: String { "DELETE FROM \(quoted) WHERE key = ANY($1::text[])" }
        var deleteAll: String { "DELETE FROM \(quoted)" }
        /// A delete of the rows of a ``PostgresFilterQuery``'s condition, which ends its own line (``selectWhere(_:)``).
        func deleteWhere(_ condition: String) -> String { "DELETE FROM \(quoted) WHERE (\(condition)\n)" }
    }
#endif
