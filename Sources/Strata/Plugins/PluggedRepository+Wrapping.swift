extension RepositoryCapabilities {
    /// Wraps this repository so that every call runs through `plugins`, the first one outermost.
    ///
    /// The wrapper has every shape this repository has (get, put, delete).
    ///
    /// - Parameters:
    ///   - plugins: The plugins; the first sees each call first and its outcome last.
    ///   - name: The name plugins see in ``PluginCall/source``; the type name by default.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedRepository<Self> {
        PluggedRepository(self, plugins: plugins, name: name)
    }
}
