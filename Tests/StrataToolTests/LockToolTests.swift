import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store's lock file held by another process — this test process, the tool being a child — however it
/// holds it: a record lock (`fcntl`, as Strata's stores and `lockf` take it) or a `flock`.
struct LockToolTests {
    /// How the test holds `.strata-lock`.
    enum Hold: String, CaseIterable, CustomTestStringConvertible {
        case flockShared, flockExclusive, recordShared, recordExclusive

        /// The holds the tool sees here: a `flock` only on Linux, where the tool takes one (see Docs/Tool.md).
        static var tested: [Hold] {
            #if os(Linux)
                allCases
            #else
                [.recordShared, .recordExclusive]
            #endif
        }

        var testDescription: String { rawValue }
        var isShared: Bool { self == .flockShared || self == .recordShared }

        /// Takes the lock on `path`; returns the descriptor, whose closing releases it.
        func take(on path: String) throws -> Int32 {
            let fd = open(path, isShared ? O_RDONLY : O_RDWR)
            guard fd >= 0 else { throw POSIXError(.EIO) }
            switch self {
            case .flockShared, .flockExclusive:
                guard flock(fd, (isShared ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0 else { throw POSIXError(.EBUSY) }
            case .recordShared, .recordExclusive:
                var lock = flock()
                lock.l_type = Int16(isShared ? F_RDLCK : F_WRLCK)
                lock.l_whence = Int16(SEEK_SET)
                guard fcntl(fd, F_SETLK, &lock) == 0 else { throw POSIXError(.EBUSY) }
            }
            return fd
        }
    }

    @Test(arguments: Hold.tested)
    func aLockHeldByAnotherProcessMeansInUse(hold: Hold) async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let entries = try folder.names(in: "store").filter { $0.hasSuffix(".strata") }
        #expect(entries.count == 4)
        let fd = try hold.take(on: store + "/.strata-lock")
        defer { _ = close(fd) }

        let inspect = try await strata("inspect", store, "--json")
        let clear = try await strata("clear", store, "--yes", "--json")

        if hold.isShared {
            #expect(inspect.status == 0, "readers share the store: \(inspect.output)")
        } else {
            #expect(inspect.status == 1)
            #expect(try inspect.json()["error"].flatMap { $0 as? [String: Any] }?["code"] as? String == "inUse")
        }
        #expect(clear.status == 1)
        #expect(try clear.json()["error"].flatMap { $0 as? [String: Any] }?["code"] as? String == "inUse")
        #expect(try folder.names(in: "store").filter { $0.hasSuffix(".strata") } == entries, "nothing removed")
    }
}
