import Foundation
import Strata
import StrataMemory
import Testing

struct MemoryDataSourceKeyTests {
    @Test func aMissQuotesTheKeyOnOneLine() async {
        let memory = MemoryDataSource<Int>()

        let error = await #expect(throws: StrataError.self) { try await memory.get(KeyQuery("line\nbreak")) }

        #expect(error?.code == .notFound)
        #expect(error?.description == #"StrataError.notFound: No value for key "line\nbreak""#)
    }

    @Test func anEmptyKeyIsRefusedByEveryCall() async {
        let memory = MemoryDataSource<Int>()

        let put = await #expect(throws: StrataError.self) { try await memory.put(1, in: KeyQuery("")) }
        let putAll = await #expect(throws: StrataError.self) {
            try await memory.putAll([1, 2], in: IdsQuery(["a", ""]))
        }
        let get = await #expect(throws: StrataError.self) { try await memory.get(KeyQuery("")) }
        let delete = await #expect(throws: StrataError.self) { try await memory.delete(KeyQuery("")) }

        let set = #expect(throws: StrataError.self) { try memory.setValue(1, forKey: "", metadata: EntryMetadata()) }
        let renew = #expect(throws: StrataError.self) { try memory.renewMetadata(EntryMetadata(), forKey: "") }

        for error in [put, putAll, get, delete, set, renew] { #expect(error?.code == .invalidArgument) }
        // Nothing was stored, not even the valid key of the refused batch
        #expect(memory.count == 0)
    }

    /// The call that cannot throw stored the entry: listed by `keys`, counted, and out of reach of every query.
    @Test func theCallThatCannotThrowStoresNothingUnderTheEmptyKey() async {
        let memory = MemoryDataSource<Int>()

        memory.setValue(1, forKey: "")
        memory.setValue(2, forKey: "", timeToLive: .seconds(60))

        #expect(memory.count == 0)
        #expect(memory.keysByRecency.isEmpty)
        #expect(memory.value(forKey: "") == nil)
    }
}
