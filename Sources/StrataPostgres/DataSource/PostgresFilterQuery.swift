#if Postgres
    import PostgresNIO
    import Strata

    /// A query of your own for ``PostgresDataSource``: a condition on the table's columns (`key`, `value` as `jsonb`,
    /// `updated_at`, `version`), with its values bound as parameters.
    ///
    /// `getAll` answers the rows that match, in key order; `delete` deletes them. Number the placeholders from `$1`:
    /// the condition is the statement's only bound part.
    ///
    /// ```swift
    /// // Not compiled: needs the trait Postgres.
    /// struct TeamQuery: PostgresFilterQuery {
    ///     let team: String
    ///     var condition: PostgresQuery { "value->>'team' = \(team)" }
    /// }
    /// ```
    public protocol PostgresFilterQuery: Query {
        /// The condition, as the `WHERE` clause of the statement (without the word `WHERE`).
        var condition: PostgresQuery { get }
    }
#endif
