/// How a repository carries out one operation: for each kind of call, which source is asked first, what is
/// written back, and what falls back.
///
/// An operation returns its plan from ``RepositoryOperation/plan``, and ``CacheRepository`` carries out every
/// call — `get`, `getAll`, `stream`, `put`, `putAll`, `delete` — by running that plan through one algorithm.
/// The five built-in operations are plans too; an operation of your own is a struct that returns one:
///
/// ```swift
/// /// The cache only, except that a value the cache never had is read from main (and not kept).
/// struct CacheOrPeek: RepositoryOperation {
///     var name: String { "cacheOrPeek" }
///     var plan: OperationPlan {
///         OperationPlan(
///             read: OperationPlan.Read(first: .cache, asksMainOn: .notFound, writesBack: false),
///             write: .cache,
///             delete: .cache
///         )
///     }
/// }
/// ```
///
/// A `nil` part declines that kind of call: the repository throws ``StrataError/Code/operationNotSupported``.
public struct OperationPlan: Sendable {
    /// How `get`, `getAll` and `stream` read; `nil` when the operation does not read.
    public var read: Read?

    /// How `put` and `putAll` write; `nil` when the operation does not write.
    public var write: Write?

    /// How `delete` deletes; `nil` when the operation does not delete.
    public var delete: Write?

    /// Creates a plan.
    ///
    /// - Parameters:
    ///   - read: How reads go; `nil` declines them.
    ///   - write: How writes go; `nil` declines them.
    ///   - delete: How deletes go; `nil` declines them.
    public init(read: Read?, write: Write?, delete: Write?) {
        self.read = read
        self.write = write
        self.delete = delete
    }

    /// A plan that declines every call: what an operation that says nothing about its plan has.
    public static var unsupported: OperationPlan { OperationPlan(read: nil, write: nil, delete: nil) }
}

extension OperationPlan {
    /// One of the two sources of a repository.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        /// The authoritative source.
        case main
        /// The fast source kept in sync with main.
        case cache

        /// The other source.
        public var other: Source { self == .main ? .cache : .main }

        /// `main` or `cache`.
        public var description: String { self == .main ? "main" : "cache" }
    }
}
