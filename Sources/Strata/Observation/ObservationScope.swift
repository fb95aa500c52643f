/// Marks the work a repository stream does on its own, so that ``ChangeBroadcaster`` can tell it apart.
///
/// Only the repository's own steps are marked, never the user code a stream's read calls: a write that a data source
/// makes inside its `get` (normalising what it read into another store) is a write like any other, announced to every
/// observer.
package enum ObservationScope {
    /// `true` around a stream's own work: its registrations are stream observers, and the writes made under it
    /// (syncing the cache after a main read, dropping a superseded copy) are not announced to stream observers.
    @TaskLocal static var isStreamRefresh = false

    /// `true` inside a repository stream's reads: the write-backs a repository makes there are the stream's own
    /// (``writingBack(_:)``), whatever else runs there is not.
    @TaskLocal static var isStreamRead = false

    /// Runs `body`, whose writes only drop a cache's copy of a value that did not go (a change feed dropping a key
    /// another instance wrote, or every key when it begins an epoch): stream observers are not told of them. What
    /// changed is announced apart, and reading it again is what a stream does then; told "deleted", a stream shows an
    /// error for a value that still exists.
    package static func droppingCopies<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await $isStreamRefresh.withValue(true, operation: body)
    }

    /// Runs a stream's reads (`body`): the write-backs they make are not announced to stream observers, so that a
    /// stream's read never makes another stream read again (two streams of one key would otherwise read in turn
    /// forever).
    static func streamReading(_ body: () async -> Void) async {
        await $isStreamRefresh.withValue(false) { await $isStreamRead.withValue(true, operation: body) }
    }

    /// Runs a stream's registrations (`body`): they are stream observers, which do not hear a stream's write-backs.
    static func streamRegistering<Result>(_ body: () -> Result) -> Result {
        $isStreamRefresh.withValue(true, operation: body)
    }

    /// Runs a repository's write of a read's answer into its cache (`body`): the stream's own when the read is a
    /// stream's, announced to every observer otherwise.
    static func writingBack<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        guard isStreamRead else { return try await body() }
        return try await $isStreamRefresh.withValue(true, operation: body)
    }
}
