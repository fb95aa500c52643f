import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

/// The diagnostics closure is called with no lock of the store held: it may call the store, as a closure that
/// logs the store's size or reads an entry does.
struct FileDataSourceDiagnosticsTests {
    /// The store under test, for the diagnostics closure made before it.
    private final class StoreBox: Sendable {
        private let store = Locked<FileDataSource?>(nil)
        private let seen = Locked<[String]>([])

        var messages: [String] { seen.withLock { $0 } }

        func hold(_ store: FileDataSource) { self.store.withLock { $0 = store } }

        /// Records the report with the store's count and entry `a`, read from within the closure.
        func record(_ report: StrataError) {
            guard let store = store.withLock({ $0 }) else { return }
            let count = store.count
            let value = store.value(forKey: "a")
            seen.withLock { $0.append("\(count) \(value?.count ?? -1) \(report.message)") }
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: ["put", "remove"])
    func aDiagnosticsClosureMayCallTheStore(over write: String) throws {
        // Given a store whose entry file `a` was replaced by a user's file, and a closure that reads the store
        let folder = try TemporaryFolder()
        let box = StoreBox()
        let store = try folder.makeStore(diagnostics: box.record)
        box.hold(store)
        try store.setValue(.pattern(100), forKey: "a")
        let fileOfA = try #require(try folder.entryFiles().first)
        try store.setValue(.pattern(10), forKey: "b")
        try Data("the user's notes\n".utf8).write(
            to: folder.storeURL().appendingPathComponent(fileOfA),
            options: .atomic
        )

        // When a write over it sets the user's file aside, and reports it
        if write == "put" {
            try store.setValue(.pattern(40), forKey: "a")
        } else {
            try store.removeValue(forKey: "a")
        }

        // Then the closure ran, and read the store as it was after the write
        let messages = box.messages
        try #require(messages.count == 1, "\(messages)")
        #expect(messages[0].hasPrefix(write == "put" ? "2 40 " : "1 -1 "), "\(messages[0])")
        #expect(messages[0].contains("set aside"), "\(messages[0])")
    }
}
