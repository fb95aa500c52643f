import Foundation
import Strata

/// Checks that a wrapper of a data source forwards every capability of the source it wraps: its origin, whether it
/// reads without blocking, its changes, entries with metadata (read and written), conditional reads and metadata
/// renewal.
///
/// A wrapper that drops a capability still compiles — the protocol's default answers instead — so this is the
/// check that finds it. Run it for every wrapper you write:
///
/// ```swift
/// @Test func myWrapperForwardsCapabilities() async throws {
///     try await WrapperConformance { probe in MyWrapper(probe) }.run()
/// }
/// ```
public struct WrapperConformance<Wrapper: DataSource>: Sendable where Wrapper.Value == String {
    private let wrap: @Sendable (CapabilityProbe) -> Wrapper

    /// Creates the check.
    ///
    /// - Parameter wrap: Wraps the probe source given to it; called once per rule.
    public init(wrap: @escaping @Sendable (CapabilityProbe) -> Wrapper) {
        self.wrap = wrap
    }

    /// Runs every rule, stopping at the first one the wrapper breaks.
    ///
    /// - Throws: ``ConformanceFailure`` naming the capability that was not forwarded.
    public func run() async throws {
        let metadata = EntryMetadata(
            storedAt: Date(timeIntervalSince1970: 1_000),
            expiresAt: Date(timeIntervalSince1970: 2_000),
            freshUntil: Date(timeIntervalSince1970: 1_500),
            eTag: "\"v1\"",
            lastModified: "Thu, 01 Jan 1970 00:16:40 GMT",
            forbidsServingStale: true
        )
        try await check("origin") { probe, wrapper in
            guard wrapper.origin == CapabilityProbe.probeOrigin else {
                throw ConformanceFailure(
                    rule: "origin",
                    message: "the wrapper says \(wrapper.origin), the source probe"
                )
            }
        }
        try await check("readsWithoutBlocking") { _, wrapper in
            guard wrapper.readsWithoutBlocking else {
                throw ConformanceFailure(
                    rule: "readsWithoutBlocking",
                    message: "the wrapper says its reads may block, the source probe reads without blocking"
                )
            }
        }
        try await check("changes") { probe, wrapper in
            let changes = wrapper.changes(forKey: "k")
            let seen = Task { () -> DataChange? in
                for await change in changes { return change }
                return nil
            }
            // The subscription is registered when the stream is made; the write follows it.
            probe.store(StoredEntry(value: "v", metadata: metadata), forKey: "k")
            let timeout = Task {
                try await Task.sleep(for: .seconds(5))
                seen.cancel()
            }
            let change = await seen.value
            timeout.cancel()
            guard change == .put(key: "k") else {
                throw ConformanceFailure(
                    rule: "changes",
                    message: "a write to the source did not reach the wrapper's stream"
                )
            }
        }
        try await check("getEntry and getAllEntries") { probe, wrapper in
            probe.store(StoredEntry(value: "v", metadata: metadata), forKey: "k")
            let entry = try await wrapper.getEntry(KeyQuery("k"))
            guard entry.metadata == metadata else {
                throw ConformanceFailure(rule: "getEntry", message: "metadata \(entry.metadata), expected \(metadata)")
            }
            let entries = try await wrapper.getAllEntries(IdsQuery(["k"]))
            guard entries.map(\.metadata) == [metadata] else {
                throw ConformanceFailure(rule: "getAllEntries", message: "metadata \(entries.map(\.metadata))")
            }
        }
        try await check("getIfModified") { probe, wrapper in
            probe.store(StoredEntry(value: "v", metadata: metadata), forKey: "k")
            // Sent with other dates than the source holds: the source's renewed metadata must come back, not the
            // caller's nor an empty one (a cache would renew the entry with it).
            let sent = EntryMetadata(storedAt: Date(timeIntervalSince1970: 10), eTag: metadata.eTag)
            guard case .notModified(let renewed) = try await wrapper.getIfModified(KeyQuery("k"), since: sent) else {
                throw ConformanceFailure(rule: "getIfModified", message: "the source's notModified was not forwarded")
            }
            guard renewed == metadata else {
                throw ConformanceFailure(
                    rule: "getIfModified",
                    message: "the renewed metadata \(renewed), expected the source's \(metadata)"
                )
            }
        }
        try await check("putEntry and putAllEntries") { probe, wrapper in
            _ = try await wrapper.putEntry(StoredEntry(value: "v", metadata: metadata), in: KeyQuery("k"))
            guard probe.storedEntry(forKey: "k")?.metadata == metadata else {
                throw ConformanceFailure(rule: "putEntry", message: "the metadata did not reach the source")
            }
            _ = try await wrapper.putAllEntries([StoredEntry(value: "w", metadata: metadata)], in: IdsQuery(["m"]))
            guard probe.storedEntry(forKey: "m")?.metadata == metadata else {
                throw ConformanceFailure(rule: "putAllEntries", message: "the metadata did not reach the source")
            }
        }
        try await check("renewMetadata") { probe, wrapper in
            probe.store(StoredEntry(value: "v", metadata: EntryMetadata()), forKey: "k")
            let renewed = try await wrapper.renewMetadata(metadata, in: KeyQuery("k"))
            guard renewed, probe.renewedKeys == ["k"], probe.storedEntry(forKey: "k")?.metadata == metadata else {
                throw ConformanceFailure(rule: "renewMetadata", message: "the renewal did not reach the source")
            }
        }
    }

    private func check(_ rule: String, _ body: (CapabilityProbe, Wrapper) async throws -> Void) async throws {
        let probe = CapabilityProbe()
        do {
            try await body(probe, wrap(probe))
        } catch let failure as ConformanceFailure {
            throw ConformanceFailure(rule: rule, message: failure.message)
        } catch {
            throw ConformanceFailure(rule: rule, message: "unexpected error: \(error)")
        }
    }
}
