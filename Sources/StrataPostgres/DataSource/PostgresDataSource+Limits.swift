#if Postgres
    import Foundation
    import PostgresNIO
    import Strata

    extension PostgresDataSource {
        /// Runs a read and returns its rows: the one place the bounds of a read are checked, for every read of the
        /// source, as the rows arrive.
        ///
        /// - Throws: ``Strata/StrataError/Code/tooLarge`` for more than ``maximumRowCount`` rows (a statement of
        ///   ``PostgresStatements`` asks for one more than that, so no more are ever sent), and once the rows hold more
        ///   than ``maximumReadSize`` bytes: the connection is then closed (the pool replaces it), so the rest are
        ///   neither held nor waited for.
        func boundedRows(_ statement: String, _ binds: PostgresBindings) async throws -> [PostgresRow] {
            try await client.withConnection { connection in
                try await connection.closingOnCancel {
                    let sequence = try await connection.query(
                        PostgresQuery(unsafeSQL: statement, binds: binds),
                        logger: PostgresDeadline.logger
                    )
                    var rows: [PostgresRow] = []
                    var bytes = 0
                    for try await row in sequence {
                        rows.append(row)
                        bytes += row.reduce(0) { $0 + ($1.bytes?.readableBytes ?? 0) }
                        guard rows.count <= maximumRowCount else { throw tooManyRows() }
                        guard bytes <= maximumReadSize else {
                            // postgres-nio would read and drop the rest of the rows on this connection, given back to
                            // the pool meanwhile: the next call given it would wait behind them, however many and however
                            // slow they are. (The row past maximumRowCount is the statement's last.)
                            try? await connection.close()
                            throw readTooLarge(bytes)
                        }
                    }
                    return rows
                }
            }
        }

        /// The error of a read that answers more than ``maximumRowCount`` rows.
        private func tooManyRows() -> StrataError {
            StrataError(
                .tooLarge,
                "A read of \(table) answers more than \(maximumRowCount) rows (the source's maximumRowCount)"
            )
        }

        /// The error of a read whose rows hold at least `size` bytes, over ``maximumReadSize``.
        private func readTooLarge(_ size: Int) -> StrataError {
            StrataError(
                .tooLarge,
                "A read of \(table) answers at least \(size) bytes of keys and JSON, over the source's maximumReadSize "
                    + "of \(maximumReadSize)"
            )
        }

        /// The error of a row whose value's JSON text is `size` bytes, over ``maximumValueSize``.
        func valueTooLarge(_ size: Int) -> StrataError {
            StrataError(
                .tooLarge,
                "A value of \(table) is \(size) bytes of JSON, over the source's maximumValueSize of \(maximumValueSize)"
            )
        }

        /// The error of a key of `size` bytes (`nil` when the server withheld it), over ``maximumKeySize``.
        func keyTooLarge(_ size: Int?) -> StrataError {
            StrataError(
                .tooLarge,
                "A key of \(table) is \(size.map { "\($0) bytes" } ?? "longer than that"), over the source's "
                    + "maximumKeySize of \(maximumKeySize) bytes"
            )
        }

        /// The error of a write of `size` bytes of keys and JSON, over ``maximumWriteSize``.
        func writeTooLarge(_ size: Int) -> StrataError {
            StrataError(
                .tooLarge,
                "A write of \(table) is at least \(size) bytes of keys and JSON, over the source's maximumWriteSize of "
                    + "\(maximumWriteSize)"
            )
        }

        /// The value as JSON text, for a `jsonb` parameter.
        ///
        /// - Throws: ``Strata/StrataError/Code/tooLarge``, before anything is sent, when the text is longer than
        ///   ``maximumValueSize``; ``Strata/StrataError/Code/dataSerialization`` when the value does not encode.
        func encode(_ value: Value) throws -> String {
            let json: Data
            do {
                json = try JSONEncoder().encode(value)
            } catch {
                throw StrataError.serialization(error, "Encoding the value as JSON failed")
            }
            guard json.count <= maximumValueSize else { throw valueTooLarge(json.count) }
            return String(decoding: json, as: UTF8.self)
        }
    }
#endif
