import StrataTestSupport
import Testing

@testable import StrataOffline

/// An actor whose jobs go through a lane, recording the order they ran in.
private actor LaneOwner {
    let lane = SerialLane()
    private(set) var order: [String] = []
    var waiterCount: Int { lane.waiterCount }

    /// Runs `name` unless the task is cancelled while it waits; whether it ran.
    func runUnlessCancelled(_ name: String) async -> Bool {
        await lane.runUnlessCancelled { order.append(name) } != nil
    }

    func run(_ name: String, heldBy gate: AsyncGate? = nil) async {
        await lane.run {
            if let gate { await gate.enter() }
            order.append(name)
        }
    }

    /// Runs `first`, then at once `second`, before any waiter resumed by `first` runs.
    func run(_ first: String, heldBy gate: AsyncGate, then second: String) async {
        await run(first, heldBy: gate)
        await run(second)
    }
}

/// Before, a job ending freed the lane and then woke the next waiter: a caller arriving first took the lane, and
/// the woken waiter queued again at the end.
struct SerialLaneTests {
    @Test(.timeLimit(.minutes(1)))
    func theLaneGoesToTheWaiterFirstCome() async {
        let owner = LaneOwner()
        let gate = AsyncGate(isOpen: false)
        let first = Task { await owner.run("a", heldBy: gate, then: "c") }
        await gate.waitForEntered(1)
        let second = Task { await owner.run("b") }
        #expect(await poll(within: .seconds(20)) { await owner.waiterCount >= 1 }, "b never waited for the lane")
        gate.open()
        await first.value
        await second.value
        #expect(await owner.order == ["a", "b", "c"])
    }

    /// A waiter whose task is cancelled leaves the queue without running its job, and the lane goes on to the next.
    @Test(.timeLimit(.minutes(1)))
    func aCancelledWaiterLeavesWithoutRunning() async {
        let owner = LaneOwner()
        let gate = AsyncGate(isOpen: false)
        let first = Task { await owner.run("a", heldBy: gate) }
        await gate.waitForEntered(1)
        let cancelled = Task { await owner.runUnlessCancelled("b") }
        #expect(await poll(within: .seconds(20)) { await owner.waiterCount >= 1 }, "b never waited for the lane")
        let third = Task { await owner.run("c") }
        #expect(await poll(within: .seconds(20)) { await owner.waiterCount >= 2 }, "c never waited for the lane")

        cancelled.cancel()

        #expect(await cancelled.value == false)
        #expect(await owner.waiterCount == 1)
        gate.open()
        await first.value
        await third.value
        #expect(await owner.order == ["a", "c"])
    }
}
