import Foundation
import LoopbackServer
import Strata
import StrataJSONFile
import StrataMemory
import StrataNetwork
import StrataOffline
import StrataTestSupport
import Testing

/// Replays that the server refuses with a scripted 409 Conflict, settled by the resolver.
struct OfflineConflictTests {
    /// A server that has `remote` for a, and a queued local write of a that the server will refuse once.
    static func conflicted(
        _ resolver: ConflictResolver<Note>?
    ) async throws -> (NotesServer, NotesRepository, URL) {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        var configuration = NotesRepository.Configuration.sentBySync
        if let resolver { configuration.conflictResolver = resolver }
        let notes = try await notesRepository(server, folder: folder, configuration: configuration)
        server.isDown = true
        try await notes.put(Note(id: "a", text: "local", version: 1), in: KeyQuery("a"))
        server.setNote(try JSONEncoder().encode(Note(id: "a", text: "remote", version: 2)), forKey: "a")
        server.scriptConflict(key: "a")
        server.isDown = false
        return (server, notes, folder)
    }

    /// What a resolver may call on its own repository.
    enum OwnCall: String, CaseIterable {
        case sync, waitForReplays, close
    }

    /// A resolver (or main, or a plugin of it) calling `sync()`, `waitForReplays()` or `close()` on its own repository
    /// during the replay waited for that replay, which waited for the resolver: both hung for good, and no later
    /// replay ran. Each now returns at once; `close()` closes the repository.
    @Test(.timeLimit(.minutes(1)), arguments: OwnCall.allCases)
    func aResolverCallingItsOwnRepositoryDoesNotWaitForItself(call: OwnCall) async throws {
        let repository = Locked<NotesRepository?>(nil)
        let called = Locked(false)
        let (server, notes, folder) = try await Self.conflicted(
            ConflictResolver { _ in
                guard let notes = repository.withLock({ $0 }) else { return .takeRemote }
                switch call {
                case .sync: await notes.sync()
                case .waitForReplays: await notes.waitForReplays()
                case .close: await notes.close()
                }
                called.withLock { $0 = true }
                return .takeRemote
            }
        )
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        repository.withLock { $0 = notes }

        let returned = Locked<SyncReport?>(nil)
        let replay = Task {
            let report = await notes.sync()
            returned.withLock { $0 = report }
        }
        // Bounded, so that a regression fails here rather than hangs the suite.
        _ = await poll(within: .seconds(30), until: { returned.withLock { $0 } != nil })

        guard let report = returned.withLock({ $0 }) else {
            // (Left as they are: closing would wait for the hung replay too.)
            Issue.record("The sync and the resolver's call waited for each other")
            return
        }
        #expect(called.withLock { $0 })
        #expect(report.resolvedByRemote == 1, "\(report)")
        await replay.value
        await notes.close()
        await server.stop()
    }

    /// A view's task awaiting `waitForReplays()` while the replay waits on a resolver that awaits the user (who
    /// never answers) returns when it is cancelled: before, it waited on the replay's lane for ever.
    @Test(.timeLimit(.minutes(1)))
    func waitingForReplaysReturnsWhenCancelledWhileAResolverAwaitsTheUser() async throws {
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let user = Locked<CheckedContinuation<ConflictResolution<Note>, Never>?>(nil)
        let (server, notes, folder) = try await Self.conflicted(
            ConflictResolver { _ in
                await withCheckedContinuation { answer in
                    user.withLock { $0 = answer }
                    enteredContinuation.yield()
                }
            }
        )
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let answerTheUser = { user.withLock { $0.take() }?.resume(returning: .takeRemote) }

        // Given a replay whose resolver awaits the user
        let replay = Task { await notes.sync() }
        var resolving = entered.makeAsyncIterator()
        _ = await resolving.next()

        // When a task awaiting the replays is cancelled
        let returned = Locked(false)
        let waiter = Task {
            await notes.waitForReplays()
            returned.withLock { $0 = true }
        }
        waiter.cancel()

        // Then it returns while the resolver still waits. (Bounded, so that a regression fails here rather than
        // hangs the suite.)
        _ = await poll(within: .seconds(30), until: { returned.withLock { $0 } })
        #expect(returned.withLock { $0 }, "waitForReplays() kept waiting for the resolver after its task was cancelled")
        #expect(user.withLock { $0 != nil })
        answerTheUser()
        await waiter.value
        #expect(await replay.value.resolvedByRemote == 1)
        await notes.close()
        await server.stop()
    }

    @Test func byDefaultTheServerWinsAndTheCacheTakesItsValue() async throws {
        let (server, notes, folder) = try await Self.conflicted(nil)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }

        let report = await notes.sync()

        #expect(report == SyncReport(delivered: 0, resolvedByRemote: 1, remaining: 0, setAside: 0))
        #expect(server.applied.isEmpty)
        let read = try await notes.get(KeyQuery("a"), operation: .cache)
        #expect(read.value.text == "remote" && !read.isPending)
        await notes.close()
        await server.stop()
    }

    /// A conflict main's value wins, whose record file cannot be removed (immutable): the write is set aside, never
    /// sent again — before, it stayed queued as it was, and the next replay sent it again and undid main's win.
    @Test(.enabled(if: immutableFilesWork))
    func aWriteMainWonWhoseRecordCannotBeRemovedIsNeverSentAgain() async throws {
        let (server, notes, folder) = try await Self.conflicted(nil)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let queued = try #require(await notes.outbox.pendingWrites.first)
        let file = try #require(recordFile(queued.sequence, in: notes.outbox.folder))
        #expect(setImmutable(file, true))
        defer { setImmutable(file, false) }

        let first = await notes.sync()
        let second = await notes.sync()

        #expect(first.resolvedByRemote == 1 && second.setAside == 1 && second.remaining == 0, "\(first), \(second)")
        #expect(server.applied.isEmpty)
        #expect(try await notes.get(KeyQuery("a"), operation: .cache).value.text == "remote")
        #expect(await notes.outbox.pendingWrites.map(\.isSetAside) == [true])
        await notes.close()
        await server.stop()
    }

    /// A conflict whose read of main's value fails for a retryable reason (503) is not settled blind: the write
    /// waits for its backoff with what it had, and the next replay, once main reads again, settles it — before, the
    /// default resolver dropped the write and left the cache holding the value main refused, and `keepLocal` resent
    /// it without `If-Match`.
    @Test(arguments: [false, true])
    func aConflictWhoseReadOfMainFailsWaitsForTheBackoff(keepsLocal: Bool) async throws {
        let (server, notes, folder) = try await Self.conflicted(keepsLocal ? .keepLocal : nil)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let queued = try #require(await notes.outbox.pendingWrites.first)
        server.failsReads = true

        let first = await notes.sync()

        #expect(first.remaining == 1 && first.resolvedByRemote == 0 && first.setAside == 0, "\(first)")
        let waiting = try #require(await notes.outbox.pendingWrites.first)
        #expect(waiting.expectedVersion == queued.expectedVersion)
        #expect(waiting.idempotencyKey == queued.idempotencyKey)
        #expect(waiting.lastError?.contains("503") == true, "\(String(describing: waiting.lastError))")
        #expect(server.applied.isEmpty)
        #expect(try await notes.get(KeyQuery("a"), operation: .cache).isPending)

        // Once main reads again, the conflict is settled as the resolver says
        server.failsReads = false
        server.scriptConflict(key: "a")
        let remoteVersion = server.eTag(forKey: "a")
        let second = await notes.sync()
        #expect(await notes.outbox.count == 0, "\(second)")
        let read = try await notes.get(KeyQuery("a"), operation: .cache)
        #expect(read.value.text == (keepsLocal ? "local" : "remote") && !read.isPending)
        if keepsLocal { #expect(server.applied.first?.ifMatch == remoteVersion) }
        await notes.close()
        await server.stop()
    }

    /// Before, the replay a stream's read started (main answered it) ran as that stream's own re-read: the cache
    /// write settling the conflict was hidden from every stream, which kept showing the local value.
    @Test(.timeLimit(.minutes(1)))
    func aStreamShowsTheValueTheConflictItsReadStartedLeftInTheCache() async throws {
        let reachability = try Reachability()
        try await withNotes(reachability: reachability) { server, notes in
            // Given a write of a queued while main could not be reached, which main will refuse once
            reachability.isUnreachable = true
            try await notes.put(Note(id: "a", text: "local", version: 1), in: KeyQuery("a"))
            server.setNote(try JSONEncoder().encode(Note(id: "a", text: "remote", version: 2)), forKey: "a")
            server.scriptConflict(key: "a")
            reachability.isUnreachable = false

            // When one stream shows the cache's copy, and another stream's read asks main, whose answer starts the
            // replay that meets the conflict
            var cached = notes.stream(KeyQuery("a"), operation: .cache, bufferingNewest: 16).makeAsyncIterator()
            while let response = await cached.next(), response.value == nil {}
            var reading = notes.stream(KeyQuery("a"), operation: .mainSync, bufferingNewest: 16).makeAsyncIterator()
            while let response = await reading.next(), response.value == nil {}

            // Then the first stream comes to show main's value, which the conflict left in the cache, no longer
            // pending (before, it went on showing the local value)
            while let response = await cached.next() {
                if response.value?.text == "remote", !response.isPending { break }
            }
            await notes.waitForReplays()
            #expect(await notes.outbox.count == 0)
            #expect(server.applied.isEmpty)
        }
    }

    /// What stalls, until it is cancelled, while a replay settles a conflict.
    enum SettlingStall: CaseIterable {
        /// The resolver, which awaits a prompt or a read.
        case resolver
        /// The merge the resolver decided, on its way into the cache.
        case merge
        /// Main's value, which the resolver let win, on its way into the cache.
        case mainsValue
    }

    /// A replay cancelled (`close()`, or its sync's task) while the resolver waits (for a prompt, a read), while the
    /// merge it decided is written to the cache, or while main's value it let win is, keeps the write queued as it
    /// was, and the next run sends it — before, the cancellation set the write aside on disk, and it was never sent;
    /// or, main's value winning, it removed the write while the cache kept its value, shown saved (found in review).
    @Test(.timeLimit(.minutes(1)), arguments: SettlingStall.allCases, [true, false])
    func aReplayCancelledWhileItsConflictIsSettledKeepsTheWriteQueued(
        stalling stall: SettlingStall,
        closing: Bool
    ) async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let cache = HeldSource()
        var configuration = OfflineRepository<NetworkDataSource<Note>, HeldSource>.Configuration.sentBySync
        configuration.conflictResolver = ConflictResolver { _ in
            switch stall {
            case .resolver:
                cache.arrived.open()
                try await waitUntilCancelled()
                return .keepLocal
            // The merge, or main's value, stalls on its way into the cache
            case .merge: return .merge(Note(id: "a", text: "stalls", version: 3))
            case .mainsValue: return .takeRemote
            }
        }
        // (In a scope of its own: the outbox is free for the next run once the repository is gone.)
        do {
            // Given a write of a queued while main was down, which main refuses once as a conflict
            let notes = try await OfflineRepository.open(
                main: server.source,
                cache: cache,
                outboxFolder: folder,
                configuration: configuration
            )
            server.isDown = true
            try await notes.put(Note(id: "a", text: "local", version: 1), in: KeyQuery("a"))
            await notes.waitForReplays()
            server.setNote(try JSONEncoder().encode(Note(id: "a", text: "stalls", version: 2)), forKey: "a")
            server.scriptConflict(key: "a")
            server.isDown = false
            let queued = try #require(await notes.outbox.pendingWrites.first)

            // When the repository closes, or the sync's task is cancelled, while the conflict is being settled
            let replay = Task { await notes.sync() }
            await cache.arrived.wait()
            if closing { await notes.close() } else { replay.cancel() }

            // Then the write is still queued as it was, neither set aside nor removed, and the cache shows it
            let report = await replay.value
            #expect(report.setAside == 0 && report.remaining == 1, "\(report)")
            #expect(await notes.outbox.pendingWrites == [queued])
            #expect(try await cache.memory.get(KeyQuery("a")).text == "local")
            await notes.close()
        }

        // And the next run sends it
        let reopened = try await notesRepository(server, folder: folder)
        let next = await reopened.sync()
        #expect(next.delivered == 1, "\(next)")
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["local"])
        await reopened.close()
        await server.stop()
    }

    @Test func keepLocalSendsTheWriteAgainOnTopOfTheServersVersion() async throws {
        let (server, notes, folder) = try await Self.conflicted(.keepLocal)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let first = try #require(await notes.outbox.pendingWrites.first)
        let remoteVersion = server.eTag(forKey: "a")

        let report = await notes.sync()

        // Sent again with a new idempotency key, conditioned on the version the server held (If-Match)
        #expect(report.delivered == 1)
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["local"])
        #expect(server.applied.first?.idempotencyKey != first.idempotencyKey)
        #expect(server.applied.first?.ifMatch == remoteVersion)
        await notes.close()
        await server.stop()
    }

    @Test func keepLocalOnAVersionThatChangedMeanwhileIsAConflictAgain() async throws {
        // Given a resolver that keeps the local value, while another client writes once more as it decides
        let versions = Locked<[String?]>([])
        let racing = Locked<NotesServer?>(nil)
        let resolver = ConflictResolver<Note> { conflict in
            versions.withLock { $0.append(conflict.remoteVersion) }
            if versions.withLock({ $0.count }) == 1, let server = racing.withLock({ $0 }) {
                server.setNote(try JSONEncoder().encode(Note(id: "a", text: "newer", version: 3)), forKey: "a")
            }
            return .keepLocal
        }
        let (server, notes, folder) = try await Self.conflicted(resolver)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        racing.withLock { $0 = server }
        let seenFirst = server.eTag(forKey: "a")

        // When the outbox replays
        let report = await notes.sync()

        // Then the send on top of the version the resolver saw is refused (412), the resolver is asked again with
        // the newer version, and the write goes on top of that one
        #expect(report.delivered == 1)
        let seen = versions.withLock { $0 }
        #expect(seen.count == 2 && seen.first == seenFirst && seen.last != seenFirst)
        #expect(server.applied.map(\.ifMatch) == [seen.last ?? nil])
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["local"])
        await notes.close()
        await server.stop()
    }

    /// A repository (its outbox taking `limits`) holding a queued delete of a, which the server refuses as a conflict,
    /// and whose resolver merges (a put of "merged") and then makes main refuse writes (503): a merged write queued
    /// waits in the outbox.
    private static func conflictedDeleteMerged<Cache: DataSource<Note>>(
        limits: Outbox.Limits = .default,
        cache: Cache = MemoryDataSource<Note>()
    ) async throws -> (NotesServer, OfflineRepository<NetworkDataSource<Note>, Cache>, URL) {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        var configuration = OfflineRepository<NetworkDataSource<Note>, Cache>.Configuration.sentBySync
        configuration.conflictResolver = ConflictResolver { _ in
            server.failsWrites = true
            return .merge(Note(id: "a", text: "merged", version: 3))
        }
        let notes = try await OfflineRepository.open(
            main: server.source,
            cache: cache,
            outboxFolder: folder,
            configuration: configuration,
            outboxLimits: limits
        )
        server.setNote(try JSONEncoder().encode(Note(id: "a", text: "remote", version: 2)), forKey: "a")
        server.isDown = true
        try await notes.delete(KeyQuery("a"))
        server.scriptConflict(key: "a")
        server.isDown = false
        return (server, notes, folder)
    }

    /// A merge the cache refuses (a JSON cache whose `maxSize` it passes) is set aside with its merged value, in an
    /// outbox of deletes only too: the mark is saved whatever the record holds. (The room check of a merge, applied to
    /// every save for a while, refused the mark and the pause alike, and the replay went round for ever.)
    @Test func aMergeTheCacheRefusesIsSetAsideInAFullOutboxToo() async throws {
        let cacheFolder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cacheFolder.deletingLastPathComponent()) }
        let cache = try JSONFileDataSource<Note>(configuration: .init(folder: cacheFolder, maxSize: 1))
        let limits = Outbox.Limits(maximumWrites: 10, maximumBytes: 0)
        let (server, notes, folder) = try await Self.conflictedDeleteMerged(limits: limits, cache: cache)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }

        _ = await notes.sync()

        // (as it was queued: with the merged value, set aside past the limit, every later write was refused)
        let record = await notes.outbox.pendingWrites.first
        #expect(record?.isSetAside == true && record?.operation == .delete && record?.value == nil)
        server.isDown = true
        await #expect(throws: Never.self) { try await notes.delete(KeyQuery("b")) }
        #expect(server.appliedNotes(forKey: "a").isEmpty)
        await notes.close()
        await server.stop()
    }

    @Test func aMergeIsSentAndCached() async throws {
        let seen = Locked<OutboxConflict<Note>?>(nil)
        let merge = ConflictResolver<Note> { conflict in
            seen.withLock { $0 = conflict }
            guard let local = conflict.local, let remote = conflict.remote else { return .takeRemote }
            return .merge(Note(id: "a", text: remote.text + "+" + local.text, version: remote.version + 1))
        }
        let (server, notes, folder) = try await Self.conflicted(merge)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }

        _ = await notes.sync()

        let conflict = try #require(seen.withLock { $0 })
        #expect(conflict.local?.text == "local" && conflict.remote?.text == "remote")
        #expect((conflict.error as? StrataError)?.code == .conflict)
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["remote+local"])
        #expect(try await notes.get(KeyQuery("a"), operation: .cache).value.version == 3)
        await notes.close()
        await server.stop()
    }

    /// A merge of a queued delete kept the record a delete holding the merged value: a read said the value was
    /// deleted while the merge waited to reach main.
    @Test func aMergedDeleteReadsAsTheMergedValueWhileItWaits() async throws {
        // Given a delete of a queued while main was down, which main refuses as a conflict
        let (server, notes, folder) = try await Self.conflictedDeleteMerged()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }

        // When the resolver merges, and main fails the merged write
        #expect(await notes.sync().remaining == 1)

        // Then a read gives the merged value, pending, and the queued write is a put
        let read = try await notes.get(KeyQuery("a"))
        #expect(read.value.text == "merged" && read.isPending)
        #expect(await notes.outbox.pendingWrites.first?.operation == .put)

        // And once main takes writes, the merged value reaches it
        server.failsWrites = false
        #expect(await notes.sync().delivered == 1)
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["merged"])
        await notes.close()
        await server.stop()
    }

    /// A merge that would take the outbox past its `maximumBytes` (here an outbox of deletes only, where a merged
    /// delete becomes a put) is set aside as the write was queued. Before, it was queued over the limit, and every
    /// later write, a delete included, was refused as the outbox being full until it reached main.
    @Test func aMergeTheOutboxHasNoRoomForIsSetAside() async throws {
        // Given a delete of a queued while main was down, which main refuses as a conflict, in an outbox of deletes only
        let (server, notes, folder) = try await Self.conflictedDeleteMerged(
            limits: .init(maximumWrites: 10, maximumBytes: 0)
        )
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }

        // When the resolver merges
        _ = await notes.sync()

        // Then the delete is set aside as it was, and the outbox still takes a delete of another key
        let record = await notes.outbox.pendingWrites.first
        #expect(record?.isSetAside == true && record?.operation == .delete && record?.value == nil)
        server.isDown = true
        await #expect(throws: Never.self) { try await notes.delete(KeyQuery("b")) }
        #expect(server.appliedNotes(forKey: "a").isEmpty)
        await notes.close()
        await server.stop()
    }

    @Test(.timeLimit(.minutes(2)))
    func aWriteDroppedWhileOnItsWayIsNotSentAgainAfterAConflict() async throws {
        // Given a queued write the server refuses as a conflict, and a resolver that keeps the local value
        let (server, notes, folder) = try await Self.conflicted(.keepLocal)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let record = try #require(await notes.outbox.pendingWrites.first)
        let writesBefore = server.writeRequestCount

        // When the app drops the write while the replay's send of it is on its way
        let (arrived, release) = (Gate(), Gate())
        server.holdNextWrite(arrived: arrived, release: release)
        let replay = Task { await notes.sync() }
        await arrived.wait()
        try await notes.outbox.drop(record.sequence)
        release.open()
        let report = await replay.value

        // Then the conflict ends the write: it is not sent again with a new idempotency key
        #expect(server.writeRequestCount == writesBefore + 1)
        #expect(server.applied.isEmpty)
        #expect(report.delivered == 0 && report.remaining == 0)
        #expect(await notes.outbox.count == 0)
        await notes.close()
        await server.stop()
    }

    @Test func aWriteThatKeepsConflictingIsSetAside() async throws {
        let (server, notes, folder) = try await Self.conflicted(.keepLocal)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        server.scriptConflict(key: "a", times: 10)

        let report = await notes.sync()

        #expect(report.setAside == 1 && report.remaining == 0)
        let record = try #require(await notes.outbox.pendingWrites.first)
        #expect(record.isSetAside && record.conflicts == 4)
        // A set-aside write is kept for inspection until dropped.
        try await notes.outbox.drop(record.sequence)
        #expect(await notes.outbox.count == 0)
        await notes.close()
        await server.stop()
    }

    /// A set-aside write is never replayed, so it no longer makes its key pending: a stream shows main's value, reads
    /// that ask main go to main again and the cache takes main's answers, and the next write of the key goes straight
    /// to main — before, the key stayed pending for good, answered from the cache with the value main refused, and
    /// main's answers were kept out of the cache; and then the stream showed the refused value as taken by main, which
    /// the cache kept (`OfflineRefusedWriteTests`).
    @Test(.timeLimit(.minutes(2)))
    func aSetAsideWriteNoLongerHoldsItsKey() async throws {
        // Given a write of a that main refused until it was set aside, a stream of a showing it pending meanwhile
        let (server, notes, folder) = try await Self.conflicted(.keepLocal)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        var responses = notes.stream(KeyQuery("a"), bufferingNewest: 16).makeAsyncIterator()
        var pending = await responses.next()
        while pending?.isLoading == true { pending = await responses.next() }
        #expect(pending?.value?.text == "local" && pending?.isPending == true)
        server.scriptConflict(key: "a", times: 10)
        #expect(await notes.sync().setAside == 1)
        server.scriptConflict(key: "a", times: 0)
        // (the stream shows main's value, not pending: the cache dropped the value main refused)
        var settled = await responses.next()
        while let response = settled, response.isPending || response.isLoading { settled = await responses.next() }
        #expect(settled?.value?.text == "remote" && settled?.isPending == false)
        // When another client writes a, and the app reads it
        server.setNote(try JSONEncoder().encode(Note(id: "a", text: "other", version: 3)), forKey: "a")
        let read = try await notes.get(KeyQuery("a"), operation: .mainSync)
        // Then main answers, the key is not pending, and the cache holds main's answer
        #expect(read.value.text == "other" && !read.isPending)
        #expect(await notes.outbox.isPending(key: "a") == false)
        #expect(try await notes.get(KeyQuery("a"), operation: .cache).value.text == "other")
        // And the next write of a goes straight to main, the set-aside one kept for inspection
        let write = try await notes.put(Note(id: "a", text: "later", version: 3), in: KeyQuery("a"))
        #expect(write.status == .saved, "\(write.status)")
        #expect(server.appliedNotes(forKey: "a").last??.text == "later")
        #expect(await notes.outbox.pendingWrites.map(\.isSetAside) == [true])
        await notes.close()
        await server.stop()
    }
}
