/// The counts of a ``MetricsPlugin`` at one moment, per source, method and operation.
public struct MetricsSnapshot: Sendable, Hashable {
    /// What metrics are kept apart by.
    public struct Key: Sendable, Hashable, CustomStringConvertible {
        /// The name of the source or repository.
        public var source: String
        /// The method.
        public var method: PluginCall.Method
        /// The repository operation's name; `nil` for a data source.
        public var operation: String?

        /// Creates a key.
        ///
        /// - Parameters:
        ///   - source: The name of the source or repository.
        ///   - method: The method.
        ///   - operation: The operation's name, such as `cacheSync`; `nil` for a data source.
        public init(source: String, method: PluginCall.Method, operation: String? = nil) {
            self.source = source
            self.method = method
            self.operation = operation
        }

        /// `source.method[operation]`.
        public var description: String {
            "\(source).\(method)" + (operation.map { "[\($0)]" } ?? "")
        }
    }

    /// The metrics of each source, method and operation seen.
    public var entries: [Key: CallMetrics]

    /// Creates a snapshot.
    ///
    /// - Parameter entries: The metrics by key.
    public init(entries: [Key: CallMetrics] = [:]) {
        self.entries = entries
    }

    /// The metrics of one key, empty if it was never seen.
    ///
    /// - Parameter key: The source, method and operation.
    public subscript(key: Key) -> CallMetrics { entries[key] ?? CallMetrics() }

    /// The metrics of every key that matches, added together; a `nil` filter matches everything.
    ///
    /// - Parameters:
    ///   - method: Only this method.
    ///   - source: Only this source.
    /// - Returns: The merged metrics.
    public func total(method: PluginCall.Method? = nil, source: String? = nil) -> CallMetrics {
        var total = CallMetrics()
        for (key, metrics) in entries
        where (method == nil || key.method == method) && (source == nil || key.source == source) {
            total.merge(metrics)
        }
        return total
    }
}
