import Dispatch
import Foundation
import Strata

/// A clock that, once armed, holds the thread that makes a chosen reading of it until released.
final class ParkingClock: WallClock, @unchecked Sendable {
    // @unchecked Sendable: `state` is only touched under `lock`.
    private let lock = NSLock()
    private var state = (armed: false, skipping: 0, parked: false)
    private let gate = DispatchSemaphore(value: 0)
    private let base = Date(timeIntervalSince1970: 1_800_000_000)

    func now() -> Date {
        let parks = lock.withLock {
            guard state.armed else { return false }
            guard state.skipping == 0 else {
                state.skipping -= 1
                return false
            }
            state = (false, 0, true)
            return true
        }
        if parks { gate.wait() }
        return base
    }

    func sleep(for duration: Duration) async throws {}

    /// Holds the thread that makes the reading after the next `skipping` ones.
    func arm(skipping: Int = 0) { lock.withLock { state = (true, skipping, false) } }

    func release() { gate.signal() }

    /// Whether a reader parked within 30 seconds.
    func waitUntilParked() async -> Bool {
        for _ in 0..<3_000 {
            if lock.withLock({ state.parked }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

/// Work run on another thread, whose end is awaited for a bounded time.
final class BackgroundWork: @unchecked Sendable {
    // @unchecked Sendable: `hasEnded` is only touched under `lock`.
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var hasEnded = false

    /// Starts `work` on a global queue.
    init(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async { [self] in
            work()
            lock.withLock { hasEnded = true }
            done.signal()
        }
    }

    /// Whether the work has ended, now.
    var isDone: Bool { lock.withLock { hasEnded } }

    /// Whether the work ended within `seconds` (at once once it has).
    func ended(within seconds: Double) async -> Bool {
        if isDone { return true }
        let ended = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: self.done.wait(timeout: .now() + seconds) == .success)
            }
        }
        if ended { lock.withLock { hasEnded = true } }
        return ended
    }
}
