import Foundation

/// One entry of a ``JSONFileDataSource`` folder as a ``JSONFileStoreInspector`` found it.
public struct JSONFileStoreEntry: Sendable, Hashable {
    /// The entry's key; `nil` for a file whose key could not be read.
    public var key: String?

    /// The entry file's path inside the store's folder: `entries/<ab>/<abcd…>.json`.
    public var path: String

    /// The entry file's length in bytes; `nil` when the file is missing.
    public var fileSize: Int?

    /// When the value was written; `nil` when unknown.
    public var storedAt: Date?

    /// The entry's own maximum age in seconds; `nil` when it uses the store's default.
    public var maxAge: Double?

    /// The entry's place in the least-recently-used order: higher is more recent.
    public var sequence: UInt64

    /// What is wrong with the entry (a missing or undecodable file, another key); `nil` for a sound one.
    public var problem: String?

    /// Whether ``problem`` is damage, which the store moves aside when it reads the entry: `false` for a sound entry,
    /// and for an entry file this process cannot read (permissions, an I/O error), which the store leaves as it is.
    public var isDamaged: Bool { problem != nil && !isLeftAsItIs }

    /// Whether the problem, if any, is one the store leaves as it is (a file it cannot read now): no damage.
    var isLeftAsItIs = false

    /// Creates an entry description.
    ///
    /// - Parameters:
    ///   - key: The entry's key.
    ///   - path: The entry file's path inside the store's folder.
    ///   - fileSize: The file's length.
    ///   - storedAt: When the value was written.
    ///   - maxAge: The entry's own maximum age in seconds.
    ///   - sequence: Its place in the recency order.
    ///   - problem: What is wrong with it.
    ///   - isDamaged: Whether `problem` is damage the store moves aside; `nil` for `problem != nil`.
    public init(
        key: String?,
        path: String,
        fileSize: Int?,
        storedAt: Date?,
        maxAge: Double?,
        sequence: UInt64,
        problem: String?,
        isDamaged: Bool? = nil
    ) {
        self.key = key
        self.path = path
        self.fileSize = fileSize
        self.storedAt = storedAt
        self.maxAge = maxAge
        self.sequence = sequence
        self.problem = problem
        self.isLeftAsItIs = problem != nil && isDamaged == false
    }

    /// When the entry expires, given the store's default maximum age; `nil` for never; between `distantPast` and
    /// `distantFuture` (a default as large as `1e308` seconds makes no infinite date; one that is not a number
    /// expires the entry).
    ///
    /// - Parameter defaultMaxAge: The store's ``JSONFileDataSource/Configuration/timeToLive``, in seconds.
    public func expiresAt(defaultMaxAge: Double?) -> Date? {
        guard let storedAt, let maxAge = maxAge ?? defaultMaxAge else { return nil }
        let expiry = storedAt.timeIntervalSince1970 + maxAge
        guard !expiry.isNaN else { return .distantPast }
        return Date(
            timeIntervalSince1970: min(
                max(expiry, Date.distantPast.timeIntervalSince1970),
                Date.distantFuture.timeIntervalSince1970
            )
        )
    }

    /// Whether `record` is the index record this entry was described from: the same place in the recency order,
    /// stored date and maximum age. A write, a read or a renewal since gives the entry another record.
    func isDescribed(by record: IndexRecord) -> Bool {
        sequence == record.sequence && storedAt == Date(timeIntervalSince1970: record.storedAt)
            && maxAge == record.maxAge
    }
}
