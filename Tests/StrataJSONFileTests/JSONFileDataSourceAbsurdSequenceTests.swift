import Foundation
import Strata
import Testing

@testable import StrataJSONFile

/// Index lines and entry files whose least-recently-used sequence no store hands out (up to `UInt64.max`, with a
/// checksum that holds): the store opens, keeps the order, and counts on without overflowing (it trapped on
/// `maxSequence + 1` at every open).
struct JSONFileDataSourceAbsurdSequenceTests {
    @Test func aTouchLineAtTheLargestSequenceKeepsTheOrderAndNumbersAgain() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open()
                for (number, name) in ["a", "b", "c"].enumerated() {
                    try store.setValue(Item(name: name, number: number), forKey: name)
                }
            }
            // Given a journal whose last line makes "a" the most recently used at UInt64.max
            let index = try FileHandle(forWritingTo: folder.appendingPathComponent("index.journal"))
            try index.seekToEnd()
            try index.write(contentsOf: IndexJournal.line(for: .touch(key: "a", sequence: .max)))
            try index.close()

            // When it opens, then the order holds and new uses come after it
            do {
                let store = try fixture.open()
                #expect(store.keysByRecency == ["a", "c", "b"])
                try store.setValue(Item(name: "d", number: 4), forKey: "d")
                #expect(try store.value(forKey: "b") == Item(name: "b", number: 1))
                #expect(store.keysByRecency == ["b", "d", "a", "c"])
            }
            // And the journal was written again with the new numbers: the next open needs no renumbering
            let reopened = try fixture.open()
            #expect(reopened.keysByRecency == ["b", "d", "a", "c"])
            let journal = try String(contentsOf: folder.appendingPathComponent("index.journal"), encoding: .utf8)
            #expect(!journal.contains(String(UInt64.max)))
            #expect(fixture.reports.all.isEmpty)
        }
    }
}
