import Dispatch
import Testing

@testable import StrataCache

/// A copy read while a write of the faster layer runs is not put back over that write: the write is counted once
/// done. Before, it was counted as it began, so a reader that took its mark then, missed the faster layer (not
/// written yet) and read the slower layer's older copy, put that copy back over the write — `CacheManager` served an
/// old reference from memory while its disk held the new one.
struct PutBackGuardTests {
    @Test(.timeLimit(.minutes(1)))
    func aMarkTakenWhileAWriteRunsDoesNotCountIt() async {
        let guarded = PutBackGuard()
        let inside = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            guarded.write("k") {
                inside.signal()
                proceed.wait()
            }
            done.signal()
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                inside.wait()
                continuation.resume()
            }
        }

        let mark = guarded.mark("k")
        proceed.signal()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                done.wait()
                continuation.resume()
            }
        }

        #expect(!guarded.putBack(readAt: mark, "k") {}, "the write ran after the mark")
        #expect(guarded.moved(since: mark, "k"))
        #expect(guarded.putBack(readAt: guarded.mark("k"), "k") {})
    }
}
