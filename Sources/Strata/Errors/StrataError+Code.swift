extension StrataError {
    /// The kind of a ``StrataError``: a closed set today, open to new members tomorrow.
    ///
    /// Compare with `==` or match in a `switch` with a `default` case.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable {
            case notFound
            case notValid
            case queryNotSupported
            case operationNotSupported
            case dataSerialization
            case unauthorized
            case network
            case unexpectedResponse
            case notModified
            case io
            case cancelled
            case cacheSyncFailed
            case alreadyInUse
            case tooLarge
            case invalidArgument
            case corrupt
            case conflict
        }

        private let wrapped: Wrapped

        private init(_ wrapped: Wrapped) {
            self.wrapped = wrapped
        }

        /// The name of the code, such as `notFound`.
        public var description: String { wrapped.rawValue }

        /// The source has no value for the query.
        public static let notFound = Code(.notFound)
        /// The source has a value but it failed validation (expired, for example).
        public static let notValid = Code(.notValid)
        /// The source cannot answer this kind of query.
        public static let queryNotSupported = Code(.queryNotSupported)
        /// The repository does not know this operation.
        public static let operationNotSupported = Code(.operationNotSupported)
        /// A value could not be encoded, decoded or mapped.
        public static let dataSerialization = Code(.dataSerialization)
        /// The remote source refused the credentials (for HTTP, a 401 or a 403).
        public static let unauthorized = Code(.unauthorized)
        /// The transport failed: no connection, a timeout, a reset.
        public static let network = Code(.network)
        /// The remote source answered, but with neither a value nor one of the mapped failures (for HTTP, a
        /// status that is not 2xx, 401, 403, 404, 409 or 412: a 5xx, a 429, a 400…). The source's own error, as
        /// ``StrataError/underlying``, has the details.
        public static let unexpectedResponse = Code(.unexpectedResponse)
        /// The code of the *not modified* errors earlier releases threw for an HTTP 304; no error has it now
        /// (a 304 is the value ``ConditionalRead/notModified(_:)``). Kept for the deprecated spelling in
        /// StrataNetwork.
        package static let retiredNotModified = Code(.notModified)
        /// A file-system operation failed.
        public static let io = Code(.io)
        /// The task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// The main source succeeded but writing its result to the cache failed; the main value is
        /// the error's ``StrataError/payload``.
        public static let cacheSyncFailed = Code(.cacheSyncFailed)
        /// A resource that must be unique (a store identifier, for example) is already in use.
        public static let alreadyInUse = Code(.alreadyInUse)
        /// A value or a response is larger than the configured limit.
        public static let tooLarge = Code(.tooLarge)
        /// An argument or a configuration value is out of its allowed range.
        public static let invalidArgument = Code(.invalidArgument)
        /// Stored data is damaged (truncated, unreadable or inconsistent with its metadata).
        public static let corrupt = Code(.corrupt)
        /// The source refused a write because its copy changed since the writer last saw it (for HTTP, a 409 or
        /// a 412); the offline outbox hands it to a conflict resolver.
        public static let conflict = Code(.conflict)
    }
}
