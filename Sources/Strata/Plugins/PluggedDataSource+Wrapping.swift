// `plugins(_:name:)` is declared once per combination of capabilities so that a source with several of
// them finds one most specific overload instead of an ambiguity.

extension GetDataSource {
    /// Wraps this source so that every call runs through `plugins`, the first one outermost.
    ///
    /// - Parameters:
    ///   - plugins: The plugins; the first sees each call first and its outcome last.
    ///   - name: The name plugins see in ``PluginCall/source``; the type name by default.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedDataSource<Self> {
        PluggedDataSource(self, plugins: plugins, name: name)
    }
}

extension PutDataSource {
    /// Wraps this source in a ``PluggedDataSource``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedDataSource<Self> {
        PluggedDataSource(self, plugins: plugins, name: name)
    }
}

extension DeleteDataSource {
    /// Wraps this source in a ``PluggedDataSource``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedDataSource<Self> {
        PluggedDataSource(self, plugins: plugins, name: name)
    }
}

extension GetDataSource where Self: PutDataSource {
    /// Wraps this source in a ``PluggedDataSource``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedDataSource<Self> {
        PluggedDataSource(self, plugins: plugins, name: name)
    }
}

extension GetDataSource where Self: DeleteDataSource {
    /// Wraps this source in a ``PluggedDataSource``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedDataSource<Self> {
        PluggedDataSource(self, plugins: plugins, name: name)
    }
}

extension PutDataSource where Self: DeleteDataSource {
    /// Wraps this source in a ``PluggedDataSource``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedDataSource<Self> {
        PluggedDataSource(self, plugins: plugins, name: name)
    }
}

extension GetDataSource where Self: PutDataSource & DeleteDataSource {
    /// Wraps this source in a ``PluggedDataSource``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedDataSource<Self> {
        PluggedDataSource(self, plugins: plugins, name: name)
    }
}
