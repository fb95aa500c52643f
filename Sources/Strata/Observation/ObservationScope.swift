/// Marks the work a repository stream does on its own, so that ``ChangeBroadcaster`` can tell it apart.
package enum ObservationScope {
    /// `true` inside a repository stream's task: its registrations are stream observers, and the writes it
    /// makes (syncing the cache after a main read) are not announced to stream observers.
    @TaskLocal static var isStreamRefresh = false

    /// Runs `body`, whose writes only drop a cache's copy of a value that did not go (a change feed dropping a key
    /// another instance wrote, or every key when it begins an epoch): stream observers are not told of them. What
    /// changed is announced apart, and reading it again is what a stream does then; told "deleted", a stream shows an
    /// error for a value that still exists.
    package static func droppingCopies<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        try await $isStreamRefresh.withValue(true, operation: body)
    }
}
