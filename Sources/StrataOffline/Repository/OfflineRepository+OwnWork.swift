/// The offline repositories whose write or replay the current task runs in (tasks it starts inherit them).
enum OwnWork {
    @TaskLocal static var repositories: [ObjectIdentifier] = []
}

extension OfflineRepository {
    /// Whether the current task runs in this repository's own write or replay: main, a plugin of it or a conflict
    /// resolver calling ``close()``, ``sync()`` or ``waitForReplays()`` there would wait for the work it is part of,
    /// for ever.
    var isInOwnWork: Bool { OwnWork.repositories.contains(ObjectIdentifier(self)) }

    /// Runs `body` as this repository's own work (``isInOwnWork``).
    func asOwnWork<Result>(
        isolation actor: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await OwnWork.$repositories.withValue(OwnWork.repositories + [ObjectIdentifier(self)]) {
            try await body()
        }
    }
}
