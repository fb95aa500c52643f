/// The loop behind every repository stream: register for changes, emit the first read, then read again
/// after every change, until the consumer goes away.
struct ResponseStream<Value: Sendable>: Sendable {
    /// Sends responses to the consumer, skipping a value equal to the previous one (for `Equatable` values) and a
    /// second ``StrataError/Code/notFound`` in a row from one origin.
    final class Emitter: Sendable {
        private let continuation: AsyncStream<RepositoryResponse<Value>>.Continuation
        private let last: Locked<RepositoryResponse<Value>?> = Locked(nil)

        init(_ continuation: AsyncStream<RepositoryResponse<Value>>.Continuation) {
            self.continuation = continuation
        }

        func callAsFunction(_ response: RepositoryResponse<Value>) {
            let isRepeat = last.withLock { last in
                defer { last = response }
                guard let last else { return false }
                return Self.isRepeat(response, of: last)
            }
            if !isRepeat { continuation.yield(response) }
        }

        private static func isRepeat(_ response: RepositoryResponse<Value>, of last: RepositoryResponse<Value>) -> Bool
        {
            switch (response, last) {
            case (
                .value(let new, let origin, _, let isStale, let isPending),
                .value(let old, let lastOrigin, _, let wasStale, let wasPending)
            ):
                guard origin == lastOrigin, isStale == wasStale, isPending == wasPending,
                    let new = new as? any Equatable
                else { return false }
                return new.isEqual(to: old)
            case (.error(let error, let origin), .error(let lastError, let lastOrigin)):
                // "Nothing under the key" again is no news: a write's announcement read after a delete since, or a
                // removal's after a read that found the key gone already.
                return origin == lastOrigin && error.strataCode == .notFound && lastError.strataCode == .notFound
            default:
                return false
            }
        }
    }

    /// The key the query names, or `nil` when any change should trigger a new read.
    let key: String?
    /// The origin of the first source the read asks, for ``RepositoryResponse/loading(origin:)``.
    let loadingOrigin: DataOrigin
    /// The origin a deletion is reported from.
    let primaryOrigin: DataOrigin
    /// Registers for changes; called inside the stream's task, before the first read.
    let observe: @Sendable () -> [AsyncStream<DataChange>]
    /// Reads once and emits what it finds.
    let read: @Sendable (Emitter) async -> Void
    /// Reads the source a deletion is reported from, alone: whether it holds nothing under the key now
    /// (``isGone(_:)``). Asked after a removal is announced, which may be older than the value the stream shows.
    let isGone: @Sendable () async -> Bool

    /// Whether `read` finds nothing: it fails with ``StrataError/Code/notFound``. A value, or another error (the
    /// source cannot tell), is not "gone".
    ///
    /// - Parameter read: A read of the entry.
    static func isGone(_ read: () async throws -> some Sendable) async -> Bool {
        do {
            _ = try await read()
            return false
        } catch {
            return error.strataCode == .notFound
        }
    }

    /// Starts the loop in a task that ends when the consumer is cancelled or drops the stream.
    func start(bufferingNewest limit: Int) -> AsyncStream<RepositoryResponse<Value>> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: RepositoryResponse<Value>.self,
            bufferingPolicy: .bufferingNewest(max(limit, 1))
        )
        // Outside the call that started the stream, if any (``CallContext/outside(isolation:_:)``): its reads are
        // not steps of that call, which returned, and a trail it bound would grow at every re-read for as long as
        // the stream lives.
        let task = Task {
            await CallContext.outside {
                await ObservationScope.$isStreamRefresh.withValue(true) {
                    await run(Emitter(continuation))
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func run(_ emit: Emitter) async {
        // Register before the first read, so a change between that read and the registration is not lost.
        let sources = observe()
        emit(.loading(origin: loadingOrigin))
        await read(emit)
        guard !sources.isEmpty else { return }
        let (merged, mergedContinuation) = AsyncStream.makeStream(
            of: DataChange.self,
            bufferingPolicy: .bufferingNewest(1)
        )
        await withTaskGroup(of: Void.self) { group in
            for source in sources {
                group.addTask {
                    for await change in source { mergedContinuation.yield(change) }
                }
            }
            // Several sources announce one delete (the cache, then the repository): report it once.
            var isRemoved = false
            for await change in merged {
                if Task.isCancelled { break }
                if let key, change.removes(key: key) {
                    if isRemoved { continue }
                    // A removal may be older than what the stream shows: announced after a later write of the key (a
                    // source announces after its write, and each source's changes come on a task of their own), or
                    // before the first read ended, which found the value written back. It stands when the source it
                    // is reported from holds nothing now; otherwise the stream reads again, as after a write.
                    if await ObservationScope.asStreamReread({ await isGone() }) {
                        isRemoved = true
                        let deleted = StrataError.notFound(
                            "The value for key \(StrataError.quoted(key: key)) was deleted"
                        )
                        emit(.error(deleted, origin: primaryOrigin))
                        continue
                    }
                }
                isRemoved = false
                await ObservationScope.asStreamReread { await read(emit) }
            }
            group.cancelAll()
        }
    }
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
