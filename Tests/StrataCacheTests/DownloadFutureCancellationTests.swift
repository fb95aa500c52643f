import Strata
import StrataCache
import Testing

/// A caller that stops waiting for a ``DownloadFuture`` (a view's task cancelled) is let go at once, and the download
/// goes on for every other listener; ``DownloadFuture/cancel()`` still stops the download itself.
@Suite(.timeLimit(.minutes(1)))
struct DownloadFutureCancellationTests {
    @Test func aCancelledWaiterStopsWaitingWhileTheDownloadGoesOn() async throws {
        // Given a download that runs until the test lets it finish, and two callers waiting for it
        let (gate, open) = AsyncStream<Void>.makeStream()
        let future = DownloadFuture<Int> {
            for await _ in gate { break }
            return Task.isCancelled ? -1 : 42
        }
        let patient = Task { try await future.value }
        let impatient = Task { try await future.value }

        // When one caller's task is cancelled
        impatient.cancel()

        // Then it gets `cancelled` while the download still runs, and the other caller gets the download's value
        let stopped = await impatient.result
        #expect(stopped.strataCode == .cancelled)
        open.yield()
        #expect(try await patient.value == 42)
        #expect(try await future.value == 42)
        #expect(await future.result.strataCode == nil)
    }

    @Test func aCallerCancelledBeforeItAsksIsNotHeld() async throws {
        let (gate, open) = AsyncStream<Void>.makeStream()
        let future = DownloadFuture<Int> {
            for await _ in gate { break }
            return 7
        }
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await future.result
        }

        #expect(await waiter.value.strataCode == .cancelled)
        open.yield()
        #expect(try await future.value == 7)
    }

    @Test func cancellingTheFutureStopsTheDownloadForEveryListener() async throws {
        let future = DownloadFuture<Int> {
            let (never, _) = AsyncStream<Void>.makeStream()
            for await _ in never { break }
            try Task.checkCancellation()
            return 1
        }
        let heard = AsyncStream<Result<Int, any Error>>.makeStream()
        future.onComplete { heard.continuation.yield($0) }

        future.cancel()

        #expect(await future.result.isCancellation)
        var results = heard.stream.makeAsyncIterator()
        #expect(await results.next()?.isCancellation == true)
    }
}

extension Result where Failure == any Error {
    fileprivate var strataCode: StrataError.Code? {
        guard case .failure(let error) = self else { return nil }
        return (error as? StrataError)?.code
    }

    fileprivate var isCancellation: Bool {
        guard case .failure(let error) = self else { return false }
        return error is CancellationError
    }
}
