import Foundation
import Testing

@testable import StrataStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An atomic write whose rename fails closes its temporary file once: closed before the rename and again when the
/// rename failed, the second `close` landed on whatever descriptor another thread had been given that number
/// meanwhile (seen in CI as a JSON store failing with `EBADF` on a folder it had just opened).
struct StoreFolderFailedRenameTests {
    @Test(.timeLimit(.minutes(1)))
    func aFailedRenameClosesNoDescriptorOfAnotherThread() throws {
        try withTemporaryFolder { root in
            // Given a folder where an atomic write's rename must fail (a non-empty folder holds the name), and a
            // thread that keeps opening, checking and closing descriptors of its own
            let folder = try StoreFolder.open(root + "/store", create: true)
            try FileManager.default.createDirectory(atPath: root + "/store/entry", withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/store/entry/file"))
            let other = DescriptorChurn()
            let thread = Thread { other.run() }
            thread.start()
            defer { other.stop() }

            // When the write fails again and again
            var failures = 0
            for _ in 0..<3_000 {
                do {
                    try folder.writeAtomically(Array("v".utf8), to: "entry", temporaryPrefix: ".tmp-", durable: false)
                } catch {
                    failures += 1
                }
            }
            other.stop()

            // Then every write failed, and no descriptor of the other thread was closed under it
            #expect(failures == 3_000)
            #expect(other.descriptorsLost == 0)
            #expect(other.rounds > 0)
            #expect(try folder.items().map(\.name) == ["entry"])
        }
    }
}

/// Opens `/dev/null`, checks the descriptor is still open, and closes it, until stopped: counts the descriptors that
/// another thread closed under it (`fstat` or `close` failing with `EBADF`).
private final class DescriptorChurn: @unchecked Sendable {
    // @unchecked Sendable is sound: every field is read and written under `lock`.
    private let lock = NSLock()
    private var stopped = false
    private var lost = 0
    private var done = 0
    private var finished = false

    var descriptorsLost: Int { lock.withLock { lost } }
    var rounds: Int { lock.withLock { done } }

    func run() {
        while !lock.withLock({ stopped }) {
            var lostNow = 0
            for _ in 0..<64 {
                let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { continue }
                var info = stat()
                if fstat(fd, &info) != 0, errno == EBADF { lostNow += 1 }
                if close(fd) != 0, errno == EBADF { lostNow += 1 }
            }
            lock.withLock {
                lost += lostNow
                done += 1
            }
        }
        lock.withLock { finished = true }
    }

    /// Stops the thread and waits for it to finish its round.
    func stop() {
        lock.withLock { stopped = true }
        while !lock.withLock({ finished }) { usleep(1_000) }
    }
}
