import Foundation
import Synchronization

/// The raw limit of a thread-safe memory cache: a dictionary behind one `Mutex`, no eviction.
public final class LockedDictionary<Value: Sendable>: Sendable {
    private let storage: Mutex<[String: Value]>

    /// Creates a dictionary holding `entries`.
    public init(_ entries: [String: Value] = [:]) { storage = Mutex(entries) }

    /// The value for `key`.
    public func value(forKey key: String) -> Value? { storage.withLock { $0[key] } }

    /// Stores `value` under `key`.
    public func setValue(_ value: Value, forKey key: String) { storage.withLock { $0[key] = value } }

    /// The number of entries.
    public var count: Int { storage.withLock { $0.count } }
}

/// Foundation's `NSCache`, used the way a Swift caller with `String` keys and `Data` values must: the key
/// becomes an `NSString` on every call and the value lives in a class box.
///
/// `@unchecked Sendable`: `NSCache` is documented as thread-safe, and the box is immutable.
public final class FoundationCache: @unchecked Sendable {
    private final class Entry {
        let data: Data
        init(_ data: Data) { self.data = data }
    }

    private let cache = NSCache<NSString, Entry>()

    /// Creates an empty cache with an optional count limit.
    public init(countLimit: Int = 0) { cache.countLimit = countLimit }

    /// The value for `key`.
    public func value(forKey key: String) -> Data? { cache.object(forKey: NSString(string: key))?.data }

    /// Stores `value` under `key`.
    public func setValue(_ value: Data, forKey key: String) {
        cache.setObject(Entry(value), forKey: NSString(string: key))
    }
}
