/// Marks the work a repository stream does on its own, so that ``ChangeBroadcaster`` can tell it apart.
///
/// Whatever a stream's read causes is the stream's own: the repository's write-backs, and the writes the sources it
/// calls make as they read (a source that normalises what it read into another store, or announces a change). None
/// of it is announced to stream observers (the app's own `changes(forKey:)` loops hear it): a stream's read never makes
/// a stream read again, so two streams whose reads write what the other observes cannot make each other read for ever.
package enum ObservationScope {
    /// `true` inside a repository stream's task: its registrations are stream observers, and the writes it
    /// makes (syncing the cache after a main read) are not announced to stream observers.
    @TaskLocal static var isStreamRefresh = false

    /// Runs `body`, whose writes only drop a cache's copy of a value that did not go (a change feed dropping a key
    /// another instance wrote, or every key when it begins an epoch): stream observers are not told of them. What
    /// changed is announced apart, and reading it again is what a stream does then; told "deleted", a stream shows an
    /// error for a value that still exists.
    package static func droppingCopies<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await asStreamRead(body)
    }

    /// Runs `body`, a read a stream makes of its own outside the repository's stream (a composition's stream that
    /// reads once more): its write-backs are the stream's, not announced to stream observers.
    package static func asStreamRead<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await $isStreamRefresh.withValue(true, operation: body)
    }

    /// Runs `body`, a read a stream makes again after it opened (a change announced, a write settled): as the
    /// stream's own read (``asStreamRead(_:)``), and as work the call that opened the stream left running
    /// (``CallContext/leftRunning(isolation:_:)``). A stream lives on long after that call returned: its re-reads are
    /// not steps of the call, and each is a trace of its own, linked to the call's span, rather than a child of a
    /// span that ended hours before, in one trace that grows with every change of the key.
    package static func asStreamReread<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await CallContext.leftRunning { try await $isStreamRefresh.withValue(true) { try await body() } }
    }
}
