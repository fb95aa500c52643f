import Foundation
import Strata
import StrataJSONFile
import StrataTesting
import Testing

struct JSONFileDataSourceScaleTests {
    @Test func openingTenThousandEntriesDecodesNoValue() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open()
                for number in 0..<10_000 {
                    try store.setValue(Item(name: "item", number: number), forKey: "key-\(number)")
                }
            }
            let decodesBeforeOpen = fixture.decodes.count
            #expect(decodesBeforeOpen == 0)

            let store = try fixture.open()

            #expect(fixture.decodes.count == 0)
            #expect(store.count == 10_000)
            // A read decodes exactly its own entry; a page decodes only its page.
            #expect(try store.value(forKey: "key-9999")?.number == 9_999)
            #expect(fixture.decodes.count == 1)
            let page = try await store.getAll(PaginationOffsetLimitQuery(offset: 100, limit: 10))
            #expect(page.count == 10)
            #expect(fixture.decodes.count == 11)
        }
    }

    @Test func aWriteAppendsOneIndexLineInsteadOfRewritingTheIndex() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            for number in 0..<100 { try store.setValue(Item(name: "item", number: number), forKey: "key-\(number)") }
            let index = folder.appendingPathComponent("index.journal")
            let before = try Data(contentsOf: index)

            try store.setValue(Item(name: "item", number: -1), forKey: "key-50")

            let after = try Data(contentsOf: index)
            #expect(after.prefix(before.count) == before)
            #expect(after.dropFirst(before.count).filter { $0 == 0x0A }.count == 1)
        }
    }
}
