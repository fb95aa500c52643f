import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

/// Entry files whose sealed trailer holds a time that is not a finite number (NaN, ±infinity: a hand-edited file
/// sealed again): damage, discarded at open, never an entry that does not expire.
struct FileDataSourceNonFiniteTimeTests {
    /// Where a trailer's times lie in its fields: created, expires.
    private static let createdOffset = 40
    private static let expiresOffset = 48

    @Test(arguments: [
        (expiresOffset, Double.infinity), (expiresOffset, .nan), (createdOffset, .nan), (createdOffset, -.infinity),
    ])
    func aTrailerWithANonFiniteTimeIsDamage(offset: Int, seconds: Double) throws {
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        do {
            let store = try folder.makeStore(clock: clock, timeToLive: .seconds(60))
            try store.setValue(.pattern(100), forKey: "a")
        }
        let name = try #require(try folder.entryFiles().first)
        try TrailerSurgery.editTrailer(of: folder.storeURL().appendingPathComponent(name)) { fields in
            withUnsafeBytes(of: seconds.bitPattern.littleEndian) {
                fields.replaceSubrange(offset..<(offset + 8), with: $0)
            }
        }
        clock.advance(by: .seconds(120))
        let log = DiagnosticsLog()

        let store = try folder.makeStore(clock: clock, timeToLive: .seconds(60), diagnostics: log.record)

        #expect(store.count == 0)
        #expect(store.value(forKey: "a") == nil)
        #expect(log.messages.contains { $0.contains(name) })
    }

    /// Metadata a caller gives with a date that is not a finite time: refused with `invalidArgument`, by a put and
    /// by a renewal, and the store keeps what it had.
    @Test(arguments: NonFiniteMetadata.cases)
    func metadataWithANonFiniteDateIsRefused(_ name: String) throws {
        let metadata = NonFiniteMetadata.metadata(name)
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try store.setValue(.pattern(10), forKey: "kept")

        #expect { try store.setValue(.pattern(20), forKey: "new", metadata: metadata) } throws: {
            ($0 as? StrataError)?.code == .invalidArgument
        }
        #expect { try store.renewMetadata(metadata, forKey: "kept") } throws: {
            ($0 as? StrataError)?.code == .invalidArgument
        }

        #expect(store.value(forKey: "new") == nil)
        // Compared as a Bool: describing a `Date` that is not finite traps in Foundation.
        #expect(store.info(forKey: "kept").map { $0.expiresAt == nil && $0.freshUntil == nil } == true)
        #expect(try folder.entryFiles().count == 1)
    }
}
