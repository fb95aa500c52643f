import Foundation
import Strata

/// How hard a ``JSONFileDataSource`` works to keep a write through a crash: the one durability enum of every
/// store.
@available(*, deprecated, renamed: "StoreDurability")
public typealias JSONFileDurability = StoreDurability

extension JSONFileDataSource {
    /// Opens a store with the earlier name of the time to live.
    ///
    /// - Parameters:
    ///   - folder: The store's folder.
    ///   - countLimit: The most entries kept.
    ///   - maxAge: The default lifetime of an entry.
    ///   - clock: The clock for stored dates and expiry.
    @available(*, deprecated, renamed: "init(folder:countLimit:timeToLive:clock:)")
    public convenience init(
        folder: URL,
        countLimit: Int? = nil,
        maxAge: Duration?,
        clock: any WallClock = SystemClock()
    ) throws {
        try self.init(folder: folder, countLimit: countLimit, timeToLive: maxAge, clock: clock)
    }

    /// Stores a value under `key` with the earlier name of its time to live.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key.
    ///   - maxAge: How long this entry lives; `nil` uses the configuration's default.
    @available(*, deprecated, renamed: "setValue(_:forKey:timeToLive:)")
    public func setValue(_ value: Value, forKey key: String, maxAge: Duration?) throws {
        try setValue(value, forKey: key, timeToLive: maxAge)
    }

    /// The live keys in ascending order.
    @available(*, deprecated, renamed: "sortedKeys()")
    public func keys() -> [String] {
        sortedKeys()
    }

    /// Removes expired entries and tidies the store.
    ///
    /// - Returns: How many expired entries were removed.
    @available(*, deprecated, renamed: "removeExpired()")
    @discardableResult
    public func cleanup() throws -> Int {
        try removeExpired()
    }
}

extension JSONFileDataSource.Configuration {
    /// How long an entry lives unless its write gives its own.
    @available(*, deprecated, renamed: "timeToLive")
    public var maxAge: Duration? {
        get { timeToLive }
        set { timeToLive = newValue }
    }

    /// Creates a configuration with the earlier name of the time to live.
    ///
    /// - Parameters:
    ///   - folder: The store's folder.
    ///   - countLimit: The most entries kept.
    ///   - maxAge: The default lifetime of an entry.
    ///   - durability: What a write survives.
    ///   - makeEncoder: Makes the encoder for each write.
    ///   - makeDecoder: Makes the decoder for each read.
    ///   - key: The key of a value, for puts of lists.
    ///   - clock: The clock for stored dates and expiry.
    ///   - diagnostics: Receives corruption reports, and a failed eviction.
    @available(
        *,
        deprecated,
        renamed: "init(folder:countLimit:timeToLive:durability:makeEncoder:makeDecoder:key:clock:diagnostics:)"
    )
    public init(
        folder: URL,
        countLimit: Int? = nil,
        maxAge: Duration?,
        durability: StoreDurability = .atomic,
        makeEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() },
        makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
        key: (@Sendable (Value) -> String)? = nil,
        clock: any WallClock = SystemClock(),
        diagnostics: (@Sendable (StrataError) -> Void)? = nil
    ) {
        self.init(
            folder: folder,
            countLimit: countLimit,
            timeToLive: maxAge,
            durability: durability,
            makeEncoder: makeEncoder,
            makeDecoder: makeDecoder,
            key: key,
            clock: clock,
            diagnostics: diagnostics
        )
    }
}
