import Strata
import StrataCache
import Testing

/// A caller waiting for a ``DownloadFuture`` lends the download its priority, as awaiting the download's task would:
/// a view that waits at a high priority for a download started in the background is not left behind it.
@Suite(.timeLimit(.minutes(1)))
struct DownloadFuturePriorityTests {
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    @Test func aWaiterOfHigherPriorityRaisesTheDownload() async throws {
        // Given a download started at background priority that finishes only once it runs above `low`
        var download = await Download.startedInTheBackground()
        #expect(await download.priorities.next() == .background)

        // When a caller of high priority waits for it
        let future = download.future
        let finished = try await Self.value(of: Task(priority: .high) { try await future.value })

        // Then the download was raised to the caller's priority
        #expect(finished >= .high)
    }

    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    @Test func aWaiterRaisedWhileItWaitsRaisesTheDownload() async throws {
        // Given a download started at background priority, and a caller of low priority waiting for it (which
        // raises the download to `low` once it waits)
        var download = await Download.startedInTheBackground()
        #expect(await download.priorities.next() == .background)
        let future = download.future
        let waiter = Task(priority: .low) { try await future.value }
        #expect(await download.priorities.next() == .low)

        // When the caller's task is raised while it waits
        waiter.escalatePriority(to: .high)

        // Then the download is raised with it
        #expect(try await Self.value(of: waiter) >= .high)
    }

    /// The task's value; the task is cancelled with the test (at its time limit, where the download is never raised).
    static func value(of task: Task<TaskPriority, any Error>) async throws -> TaskPriority {
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// A download that says its priority when it starts and each time it is raised, and finishes once it runs above
    /// `low`, returning that priority.
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    struct Download {
        let future: DownloadFuture<TaskPriority>
        var priorities: AsyncStream<TaskPriority>.Iterator

        static func startedInTheBackground() async -> Download {
            let (priorities, heard) = AsyncStream<TaskPriority>.makeStream()
            let (futures, made) = AsyncStream<DownloadFuture<TaskPriority>>.makeStream()
            // Detached, so that nothing awaits the task that starts the download (which would raise it).
            Task.detached(priority: .background) {
                made.yield(DownloadFuture { await Self.runUntilRaised(telling: heard) })
            }
            var iterator = futures.makeAsyncIterator()
            let future = await iterator.next()!
            return Download(future: future, priorities: priorities.makeAsyncIterator())
        }

        static func runUntilRaised(telling heard: AsyncStream<TaskPriority>.Continuation) async -> TaskPriority {
            let (raised, raise) = AsyncStream<TaskPriority>.makeStream()
            return await withTaskPriorityEscalationHandler {
                heard.yield(Task.currentPriority)
                for await priority in raised where priority > .low { return priority }
                return Task.currentPriority
            } onPriorityEscalated: { _, priority in
                heard.yield(priority)
                raise.yield(priority)
            }
        }
    }
}
