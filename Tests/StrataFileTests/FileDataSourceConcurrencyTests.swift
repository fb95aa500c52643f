import Foundation
import Strata
import StrataFile
import Testing

struct FileDataSourceConcurrencyTests {
    @Test func concurrentWritesAndReadsOfTheSameKeysNeverLookDamaged() async throws {
        // Given a store shared by eight tasks that write and read the same ten keys
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(countLimit: 8)

        // When they run at once
        let wrongValues = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for step in 0..<150 {
                        let key = "key-\((task + step) % 10)"
                        if step % 3 == 0 {
                            let value = Data("\(key)|\(task)-\(step)|".utf8) + Data.pattern(step * 37)
                            try? store.setValue(value, forKey: key)
                        } else if let value = store.value(forKey: key),
                            !value.starts(with: Data("\(key)|".utf8))
                        {
                            wrong += 1
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }

        // Then every read returned a value of its own key, nothing was taken for damaged, and the
        // index matches the folder
        #expect(wrongValues == 0)
        #expect(store.corruptEntriesRemoved == 0)
        #expect(store.count <= 8)
        #expect(try folder.entryFiles().count == store.count)
    }
}
