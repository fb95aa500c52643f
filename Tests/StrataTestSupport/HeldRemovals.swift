import Strata

/// A data source that is its store in every call, but whose changes hold back every removal until ``release()``: what
/// an observer sees when a delete of a key is applied and its announcement comes late, after a write of the key applied
/// and announced since (a store announces after it lets go of its lock, and a stream gets each source's changes on a
/// task of its own).
///
/// ```swift
/// let source = HeldRemovals(memory)
/// memory.removeValue(forKey: "k")  // applied; its announcement held
/// await source.waitForHeldRemoval()
/// memory.setValue(2, forKey: "k")  // applied and announced
/// source.release()  // the delete's announcement arrives last
/// ```
package final class HeldRemovals<Store: DataSource>: DataSource {
    package typealias Value = Store.Value

    private let store: Store
    private let gate = AsyncGate(isOpen: false)

    /// Wraps `store`.
    ///
    /// - Parameter store: The store every call goes to.
    package init(_ store: Store) {
        self.store = store
    }

    /// Waits until a removal is held.
    package func waitForHeldRemoval() async {
        await gate.waitForEntered(1)
    }

    /// Lets the held removals through, in no particular order, and every later one at once.
    package func release() {
        gate.open()
    }

    /// The store's origin.
    package var origin: DataOrigin { store.origin }

    /// The store's changes, its removals held until ``release()``; the store's registration is made now.
    package func changes(forKey key: String?) -> AsyncStream<DataChange> {
        let changes = store.changes(forKey: key)
        let (stream, continuation) = AsyncStream.makeStream(of: DataChange.self)
        let gate = gate
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for await change in changes {
                    switch change {
                    case .delete, .deleteAll:
                        group.addTask {
                            await gate.enter()
                            continuation.yield(change)
                        }
                    case .put, .invalidateAll: continuation.yield(change)
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    package func get(_ query: any Query) async throws -> Value { try await store.get(query) }

    package func getAll(_ query: any Query) async throws -> [Value] { try await store.getAll(query) }

    package func getEntry(_ query: any Query) async throws -> StoredEntry<Value> { try await store.getEntry(query) }

    package func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
        try await store.getAllEntries(query)
    }

    package func put(_ value: Value, in query: any Query) async throws -> Value {
        try await store.put(value, in: query)
    }

    package func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        try await store.putAll(values, in: query)
    }

    package func delete(_ query: any Query) async throws { try await store.delete(query) }
}
