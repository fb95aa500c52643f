import Foundation
import Strata
import StrataTesting
import Testing

/// Every wrapper the core ships forwards every capability of the source it wraps (``WrapperConformance``).
struct CapabilityForwardingTests {
    @Test func pluginsWithoutPluginsForwardEveryCapability() async throws {
        try await WrapperConformance { $0.plugins([]) }.run()
    }

    @Test func pluginsWithPluginsForwardEveryCapability() async throws {
        try await WrapperConformance { $0.plugins([MetricsPlugin(), RetryPlugin()]) }.run()
    }

    @Test func aValidatorThatAcceptsForwardsEveryCapability() async throws {
        try await WrapperConformance { $0.validated(by: ClosureValidator { _, _ in true }) }.run()
    }

    @Test func aMapperForwardsEveryCapability() async throws {
        try await WrapperConformance { $0.mapped(to: { $0 }, from: { $0 }) }.run()
    }

    @Test func theAssemblerForwardsEveryCapability() async throws {
        try await WrapperConformance { DataSourceAssembler($0) }.run()
    }

    @Test func aSpyForwardsEveryCapability() async throws {
        try await WrapperConformance { SpyDataSource(name: "spy", wrapping: $0) }.run()
    }

    @Test func aStackOfWrappersForwardsEveryCapability() async throws {
        try await WrapperConformance { probe in
            SpyDataSource(
                name: "spy",
                wrapping: DataSourceAssembler(
                    probe.mapped(to: { $0 }, from: { $0 }).plugins([MetricsPlugin()])
                        .validated(by: ClosureValidator { _, _ in true })
                )
            )
        }.run()
    }

    @Test func theCheckFindsAWrapperThatDropsACapability() async throws {
        // Given a wrapper of its own that forwards reads and writes but not the capabilities
        let check = WrapperConformance { ForgetfulWrapper(source: $0) }
        // Then the check names the first capability it lost
        await #expect(throws: ConformanceFailure.self) { try await check.run() }
        do {
            try await check.run()
        } catch let failure as ConformanceFailure {
            #expect(failure.rule == "origin")
        }
    }

    @Test func theCheckFindsAWrapperThatSaysItsReadsMayBlockOverASourceThatDoesNot() async throws {
        // Given a wrapper written before the capability existed, that forwards only the source's origin
        let check = WrapperConformance { ForgetfulWrapper(source: $0, forwardsOrigin: true) }
        // Then the check names the capability it lost
        do {
            try await check.run()
            Issue.record("the check must fail")
        } catch let failure as ConformanceFailure {
            #expect(failure.rule == "readsWithoutBlocking")
        }
    }

    /// Before, any `notModified` passed: a wrapper that answered with the caller's metadata (or none) did too, and a
    /// cache over it renewed its entry with what it sent, or with no freshness date at all.
    @Test func theCheckFindsAWrapperThatAnswersARenewalWithTheCallersMetadata() async throws {
        let check = WrapperConformance { RenewalEchoingWrapper(source: $0) }
        do {
            try await check.run()
            Issue.record("the check must fail")
        } catch let failure as ConformanceFailure {
            #expect(failure.rule == "getIfModified")
        }
    }

    @Test func aRejectedValueCarriesItsEntryWithItsMetadata() async throws {
        let probe = CapabilityProbe()
        let metadata = EntryMetadata(storedAt: Date(timeIntervalSince1970: 5), eTag: "\"e\"")
        probe.store(StoredEntry(value: "old", metadata: metadata), forKey: "k")
        let validated = probe.validated(by: ClosureValidator { _, _ in false })
        do {
            _ = try await validated.get(KeyQuery("k"))
            Issue.record("a rejected value must throw")
        } catch let error as StrataError {
            #expect(error.code == .notValid)
            #expect(error.value(as: String.self) == "old")
            #expect(error.staleEntry(as: String.self)?.metadata == metadata)
        }
    }
}

/// A wrapper that forgets every capability (but its source's origin, when asked): what the defaults answer for a
/// wrapper written before them.
private struct ForgetfulWrapper: DataSource {
    let source: CapabilityProbe
    var forwardsOrigin = false
    var origin: DataOrigin { forwardsOrigin ? source.origin : .unspecified }
    func get(_ query: any Query) async throws -> String { try await source.get(query) }
    func getAll(_ query: any Query) async throws -> [String] { try await source.getAll(query) }
    func put(_ value: String, in query: any Query) async throws -> String { try await source.put(value, in: query) }
    func putAll(_ values: [String], in query: any Query) async throws -> [String] {
        try await source.putAll(values, in: query)
    }
    func delete(_ query: any Query) async throws { try await source.delete(query) }
}

/// A wrapper that forwards every capability, but answers a conditional read the source did not modify with the
/// metadata the caller sent, not the source's renewed one.
private struct RenewalEchoingWrapper: DataSource {
    let source: CapabilityProbe
    var origin: DataOrigin { source.origin }
    var readsWithoutBlocking: Bool { source.readsWithoutBlocking }
    func changes(forKey key: String?) -> AsyncStream<DataChange> { source.changes(forKey: key) }
    func get(_ query: any Query) async throws -> String { try await source.get(query) }
    func getAll(_ query: any Query) async throws -> [String] { try await source.getAll(query) }
    func getEntry(_ query: any Query) async throws -> StoredEntry<String> { try await source.getEntry(query) }
    func getAllEntries(_ query: any Query) async throws -> [StoredEntry<String>] {
        try await source.getAllEntries(query)
    }
    func getIfModified(_ query: any Query, since metadata: EntryMetadata) async throws -> ConditionalRead<String> {
        let read = try await source.getIfModified(query, since: metadata)
        guard case .notModified = read else { return read }
        return .notModified(metadata)
    }
    func put(_ value: String, in query: any Query) async throws -> String { try await source.put(value, in: query) }
    func putAll(_ values: [String], in query: any Query) async throws -> [String] {
        try await source.putAll(values, in: query)
    }
    func putEntry(_ entry: StoredEntry<String>, in query: any Query) async throws -> String {
        try await source.putEntry(entry, in: query)
    }
    func putAllEntries(_ entries: [StoredEntry<String>], in query: any Query) async throws -> [String] {
        try await source.putAllEntries(entries, in: query)
    }
    func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        try await source.renewMetadata(metadata, in: query)
    }
    func delete(_ query: any Query) async throws { try await source.delete(query) }
}
