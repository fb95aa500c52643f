extension DataSourceCapabilities {
    /// Wraps this source so that every call runs through `plugins`, the first one outermost.
    ///
    /// The wrapper has every shape this source has (get, put, delete) and forwards its capabilities
    /// (``DataSourceCapabilities/origin``, ``DataSourceCapabilities/changes(forKey:)``, entries with metadata).
    ///
    /// - Parameters:
    ///   - plugins: The plugins; the first sees each call first and its outcome last.
    ///   - name: The name plugins see in ``PluginCall/source``; the type name by default.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedDataSource<Self> {
        PluggedDataSource(self, plugins: plugins, name: name)
    }
}
