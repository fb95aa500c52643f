/// Marks the work a repository stream does on its own, so that ``ChangeBroadcaster`` can tell it apart.
enum ObservationScope {
    /// `true` inside a repository stream's task: its registrations are stream observers, and the writes it
    /// makes (syncing the cache after a main read) are not announced to stream observers.
    @TaskLocal static var isStreamRefresh = false
}
