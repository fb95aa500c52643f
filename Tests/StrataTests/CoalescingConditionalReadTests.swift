import StrataTestSupport
import Testing

@testable import Strata

/// A source whose current value carries the entity tag `"v2"`: a conditional read with that tag is *not modified*,
/// any other gets the value. Each call is counted and held at a gate until the test opens it.
private final class TaggedSource: GetDataSource {
    let gate = AsyncGate(isOpen: false)
    private let count = Locked(0)

    var calls: Int { count.withLock { $0 } }

    func get(_ query: any Query) async throws -> String { try await getEntry(query).value }

    func getAll(_ query: any Query) async throws -> [String] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func getEntry(_ query: any Query) async throws -> StoredEntry<String> {
        count.withLock { $0 += 1 }
        await gate.enter()
        return StoredEntry(value: "current", metadata: EntryMetadata(eTag: "\"v2\""))
    }

    func getIfModified(_ query: any Query, since metadata: EntryMetadata) async throws -> ConditionalRead<String> {
        count.withLock { $0 += 1 }
        await gate.enter()
        if metadata.eTag == "\"v2\"" { return .notModified(EntryMetadata(eTag: "\"v2\"")) }
        return .modified(StoredEntry(value: "current", metadata: EntryMetadata(eTag: "\"v2\"")))
    }
}

/// The coalescing plugin shares a conditional read only with one that sends the same validators: a caller whose copy
/// is outdated never gets the *not modified* meant for a caller whose copy is current, nor the other way round.
struct CoalescingConditionalReadTests {
    /// Whether a conditional read's answer is *not modified*.
    private static func isNotModified(_ read: ConditionalRead<String>) -> Bool {
        if case .notModified = read { return true }
        return false
    }

    /// Starts two reads of a gated source through a new coalescing plugin, opens the gate once both wait, and returns
    /// their answers and the number of calls the source took.
    private static func meet<First: Sendable, Second: Sendable>(
        _ first: @escaping @Sendable (PluggedDataSource<TaggedSource>) async throws -> First,
        _ second: @escaping @Sendable (PluggedDataSource<TaggedSource>) async throws -> Second
    ) async throws -> (First, Second, calls: Int) {
        let source = TaggedSource()
        let plugin = CoalescingPlugin()
        let plugged = source.plugins([plugin])
        async let firstAnswer = first(plugged)
        async let secondAnswer = second(plugged)
        await poll { plugin.waiterCount >= 2 }
        source.gate.open()
        let (one, two) = try await (firstAnswer, secondAnswer)
        return (one, two, source.calls)
    }

    @Test(arguments: [
        (EntryMetadata(eTag: "\"v1\""), EntryMetadata(eTag: "\"v2\"")),
        (EntryMetadata(lastModified: "Mon, 02 Nov 2026 10:00:00 GMT"), EntryMetadata(eTag: "\"v2\"")),
    ])
    func conditionalReadsWithOtherValidatorsDoNotShare(outdated: EntryMetadata, current: EntryMetadata) async throws {
        // Given a source held at a gate, behind the plugin, when a conditional read of an outdated copy meets one of
        // the current copy
        let (outdatedAnswer, currentAnswer, calls) = try await Self.meet(
            { try await $0.getIfModified(KeyQuery("a"), since: outdated) },
            { try await $0.getIfModified(KeyQuery("a"), since: current) }
        )

        // Then each read asks the source with its own validators and gets its own answer
        #expect(!Self.isNotModified(outdatedAnswer))
        #expect(Self.isNotModified(currentAnswer))
        #expect(calls == 2)
    }

    @Test func conditionalReadsWithEqualValidatorsShareOneCall() async throws {
        // Given a source held at a gate, behind the plugin, when two conditional reads of the same copy meet
        let (first, second, calls) = try await Self.meet(
            { try await $0.getIfModified(KeyQuery("a"), since: EntryMetadata(eTag: "\"v2\"")) },
            { try await $0.getIfModified(KeyQuery("a"), since: EntryMetadata(eTag: "\"v2\"")) }
        )

        // Then they share one call and its answer
        #expect(Self.isNotModified(first) && Self.isNotModified(second))
        #expect(calls == 1)
    }

    @Test func aConditionalReadAndAPlainReadDoNotShare() async throws {
        // Given a source held at a gate, behind the plugin, when a conditional read of the current copy meets a plain
        // read of the same key
        let (conditional, plain, calls) = try await Self.meet(
            { try await $0.getIfModified(KeyQuery("a"), since: EntryMetadata(eTag: "\"v2\"")) },
            { try await $0.getEntry(KeyQuery("a")) }
        )

        // Then each calls the source and gets an answer of its own kind
        #expect(Self.isNotModified(conditional))
        #expect(plain.value == "current")
        #expect(calls == 2)
    }
}
