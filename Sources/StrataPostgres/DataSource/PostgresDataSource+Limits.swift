#if Postgres
    import Foundation
    import PostgresNIO
    import Strata

    extension PostgresDataSource {
        /// Runs a read and returns its rows: the one place the row bound is checked, for every read of the source.
        ///
        /// - Throws: ``Strata/StrataError/Code/tooLarge`` for more than ``maximumRowCount`` rows (a statement of
        ///   ``PostgresStatements`` asks for one more than that, so no more are ever sent).
        func boundedRows(_ statement: String, _ binds: PostgresBindings) async throws -> [PostgresRow] {
            let rows = try await run(statement, binds)
            guard rows.count <= maximumRowCount else {
                throw StrataError(
                    .tooLarge,
                    "A read of \(table) answers more than \(maximumRowCount) rows (the source's maximumRowCount)"
                )
            }
            return rows
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
