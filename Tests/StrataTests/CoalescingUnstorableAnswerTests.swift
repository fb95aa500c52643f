import StrataTestSupport
import Testing

@testable import Strata

/// A source whose entries say whether they may be stored, each answer numbered, held at a gate until the test opens it.
private final class NumberedEntries: GetDataSource {
    let gate = AsyncGate(isOpen: false)
    let isStorable: Bool
    private let count = Locked(0)

    init(isStorable: Bool) { self.isStorable = isStorable }

    var calls: Int { count.withLock { $0 } }

    func get(_ query: any Query) async throws -> Int { try await getEntry(query).value }

    func getAll(_ query: any Query) async throws -> [Int] { throw StrataError.queryNotSupported(query, by: Self.self) }

    func getEntry(_ query: any Query) async throws -> StoredEntry<Int> {
        let number = count.withLock { count in
            count += 1
            return count
        }
        await gate.enter()
        return StoredEntry(value: number, metadata: EntryMetadata(expiresAt: isStorable ? nil : .distantPast))
    }
}

/// The coalescing plugin hands the caller that joined a call only an answer that may be stored: one that may not (for
/// HTTP in a shared cache, one user's answer) goes to the caller whose call read it alone.
struct CoalescingUnstorableAnswerTests {
    @Test(arguments: [false, true])
    func aJoinedCallGetsTheAnswerOnlyWhenItMayBeStored(isStorable: Bool) async throws {
        // Given a source held at a gate, behind the plugin
        let source = NumberedEntries(isStorable: isStorable)
        let plugin = CoalescingPlugin()
        let plugged = source.plugins([plugin])

        // When two identical reads of entries meet
        async let first = plugged.getEntry(KeyQuery("a"))
        async let second = plugged.getEntry(KeyQuery("a"))
        await poll { plugin.waiterCount >= 2 }
        source.gate.open()
        let values = try await [first.value, second.value].sorted()

        // Then they share one call only when its answer may be stored; otherwise each read calls the source
        #expect(values == (isStorable ? [1, 1] : [1, 2]))
        #expect(source.calls == (isStorable ? 1 : 2))
    }
}
