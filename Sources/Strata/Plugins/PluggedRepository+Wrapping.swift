// `plugins(_:name:)` is declared once per combination of capabilities so that a repository with several of
// them finds one most specific overload instead of an ambiguity.

extension GetRepository {
    /// Wraps this repository so that every call runs through `plugins`, the first one outermost.
    ///
    /// - Parameters:
    ///   - plugins: The plugins; the first sees each call first and its outcome last.
    ///   - name: The name plugins see in ``PluginCall/source``; the type name by default.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedRepository<Self> {
        PluggedRepository(self, plugins: plugins, name: name)
    }
}

extension PutRepository {
    /// Wraps this repository in a ``PluggedRepository``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedRepository<Self> {
        PluggedRepository(self, plugins: plugins, name: name)
    }
}

extension DeleteRepository {
    /// Wraps this repository in a ``PluggedRepository``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedRepository<Self> {
        PluggedRepository(self, plugins: plugins, name: name)
    }
}

extension GetRepository where Self: PutRepository {
    /// Wraps this repository in a ``PluggedRepository``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedRepository<Self> {
        PluggedRepository(self, plugins: plugins, name: name)
    }
}

extension GetRepository where Self: DeleteRepository {
    /// Wraps this repository in a ``PluggedRepository``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedRepository<Self> {
        PluggedRepository(self, plugins: plugins, name: name)
    }
}

extension PutRepository where Self: DeleteRepository {
    /// Wraps this repository in a ``PluggedRepository``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedRepository<Self> {
        PluggedRepository(self, plugins: plugins, name: name)
    }
}

extension GetRepository where Self: PutRepository & DeleteRepository {
    /// Wraps this repository in a ``PluggedRepository``, the first plugin outermost.
    public func plugins(_ plugins: [any StrataPlugin], name: String? = nil) -> PluggedRepository<Self> {
        PluggedRepository(self, plugins: plugins, name: name)
    }
}
