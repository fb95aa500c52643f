import Foundation
import Strata

extension FileDataSource {
    /// What a completed write survives: the one enum of every store.
    @available(*, deprecated, renamed: "StoreDurability")
    public typealias Durability = StoreDurability

    /// How long entries live.
    @available(*, deprecated, message: "Use a Duration? time to live: nil for ever")
    public enum Lifetime: Sendable, Hashable {
        /// Entries expire this long after they are written.
        case duration(Duration)
        /// Entries never expire; only the size and count limits remove them.
        case forever

        /// The duration, or `nil` for ``forever``.
        public var duration: Duration? {
            switch self {
            case .duration(let duration): duration
            case .forever: nil
            }
        }
    }

    /// Returns the data stored under `key`.
    ///
    /// - Parameter key: The key.
    @available(*, deprecated, renamed: "value(forKey:)")
    public func data(forKey key: String) -> Data? {
        value(forKey: key)
    }

    /// Stores `data` under `key`.
    ///
    /// - Parameters:
    ///   - data: The bytes to store.
    ///   - key: The key.
    ///   - options: The entry's lifetime, validators and attributes.
    @available(*, deprecated, renamed: "setValue(_:forKey:options:)")
    public func setData(_ data: Data, forKey key: String, options: EntryOptions = EntryOptions()) throws {
        try setValue(data, forKey: key, options: options)
    }

    /// Removes the entry under `key`; returns whether there was one.
    ///
    /// - Parameter key: The key.
    @available(*, deprecated, renamed: "removeValue(forKey:)")
    @discardableResult
    public func removeData(forKey key: String) throws -> Bool {
        try removeValue(forKey: key)
    }

    /// The live keys in ascending order.
    @available(*, deprecated, renamed: "sortedKeys()")
    public func keys() -> [String] {
        sortedKeys()
    }

    /// Removes expired entries and tidies the store.
    @available(*, deprecated, renamed: "removeExpired()")
    public func cleanup() throws {
        try removeExpired()
    }
}

extension FileDataSource.Configuration {
    /// How long an entry lives unless its put says otherwise.
    @available(*, deprecated, renamed: "timeToLive")
    public var lifetime: FileDataSource.Lifetime {
        get { timeToLive.map { .duration($0) } ?? .forever }
        set { timeToLive = newValue.duration }
    }

    /// The most entries kept.
    @available(*, deprecated, renamed: "countLimit")
    public var maxCount: Int? {
        get { countLimit }
        set { countLimit = newValue }
    }

    // Each `renamed:` lists the new labels one for one in the places of the old ones, so that the fix-it renames the
    // labels of a call.

    /// Creates a configuration with the earlier names of its settings.
    ///
    /// - Parameters:
    ///   - location: The folder that holds the store's folder.
    ///   - identifier: The name of the store's folder.
    ///   - lifetime: The default lifetime of an entry.
    ///   - maxSize: The most bytes of data kept.
    ///   - maxCount: The most entries kept.
    ///   - durability: What a write survives.
    ///   - clock: The clock for dates and expiry.
    ///   - verifiesContent: Whether every read checks the data against its content hash.
    @available(
        *,
        deprecated,
        renamed: "init(location:identifier:timeToLive:maxSize:countLimit:durability:clock:verifiesContent:)"
    )
    public init(
        location: FileDataSource.Location = .caches,
        identifier: String,
        lifetime: FileDataSource.Lifetime,
        maxSize: Int? = nil,
        maxCount: Int? = nil,
        durability: StoreDurability = .atomic,
        clock: any WallClock = SystemClock(),
        verifiesContent: Bool = true
    ) {
        self.init(
            location: location,
            identifier: identifier,
            timeToLive: lifetime.duration,
            maxSize: maxSize,
            countLimit: maxCount,
            durability: durability,
            clock: clock,
            verifiesContent: verifiesContent
        )
    }

    /// Creates a configuration with the earlier name of the count limit.
    ///
    /// - Parameters:
    ///   - location: The folder that holds the store's folder.
    ///   - identifier: The name of the store's folder.
    ///   - maxSize: The most bytes of data kept.
    ///   - maxCount: The most entries kept.
    ///   - durability: What a write survives.
    ///   - clock: The clock for dates and expiry.
    ///   - verifiesContent: Whether every read checks the data against its content hash.
    @available(*, deprecated, renamed: "init(location:identifier:maxSize:countLimit:durability:clock:verifiesContent:)")
    public init(
        location: FileDataSource.Location = .caches,
        identifier: String,
        maxSize: Int? = nil,
        maxCount: Int?,
        durability: StoreDurability = .atomic,
        clock: any WallClock = SystemClock(),
        verifiesContent: Bool = true
    ) {
        self.init(
            location: location,
            identifier: identifier,
            lifetime: .forever,
            maxSize: maxSize,
            maxCount: maxCount,
            durability: durability,
            clock: clock,
            verifiesContent: verifiesContent
        )
    }
}
