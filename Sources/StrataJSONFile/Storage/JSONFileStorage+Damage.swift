import Foundation
import Strata
import StrataStorage

extension JSONFileStorage {
    /// Opens the shard folder `name` (never following a link), making it when `create` is true; `nil` when it
    /// is missing and not made.
    ///
    /// A link in its place is removed (never what it points to) and a file set aside, both reported; a write
    /// then makes the shard anew, a read finds nothing.
    mutating func shard(_ name: String, create: Bool, now: Date) throws -> StoreFolder? {
        if let kept = shards[name] { return kept.folder }
        for _ in 0..<3 {
            do throws(POSIXCallError) {
                var folder = try entries.subfolder(name, create: false)
                if folder == nil, create {
                    folder = try entries.subfolder(name, create: true, durable: durable)
                }
                guard let folder else { return nil }
                if shards.count >= Self.maximumOpenShards { shards.remove(at: shards.startIndex) }
                if let kept = KeptShard(folder) { shards[name] = kept }
                return folder
            } catch {
                guard try setAsideDamage(name, in: entries, error: error, now: now) else {
                    throw error.strataError("Opening the entry folder")
                }
                if !create { return nil }
            }
        }
        throw StrataError(.io, "The entry folder \(entries.qualified(name)) keeps changing underneath the store")
    }

    /// Handles a failure that means something foreign is at `name`: a link is removed (the link itself), a
    /// folder, a special file or a file too large to be the store's set aside; either is reported. Returns whether
    /// it was such damage.
    mutating func setAsideDamage(_ name: String, in folder: StoreFolder, error: POSIXCallError, now: Date) throws
        -> Bool
    {
        guard let report = try Self.setAsideDamage(name, in: folder, error: error, now: now) else { return false }
        record(report)
        return true
    }

    /// ``setAsideDamage(_:in:error:now:)`` before the storage exists: returns the report instead of keeping it.
    static func setAsideDamage(_ name: String, in folder: StoreFolder, error: POSIXCallError, now: Date) throws
        -> StrataError?
    {
        if error.isLink {
            do {
                try folder.remove(name)
            } catch {
                throw error.strataError("Removing a symbolic link from the store")
            }
            return StrataError(
                .corrupt,
                "A symbolic link where the store keeps \(folder.qualified(name)): removed the link, not what it "
                    + "pointed to"
            )
        }
        guard isForeign(error) else { return nil }
        return try setAside(name, in: folder, now: now, reason: "Not what the store keeps there")
    }

    /// Whether a failure to read an entry file means something foreign is at its name, which the store removes (a
    /// link) or sets aside (a folder, a special file, a file too large to be the store's): damage. Any other failure
    /// (permissions, an I/O error, too many open files) is not: the store leaves the file as it is.
    static func isForeign(_ error: POSIXCallError) -> Bool {
        error.isLink || error.isWrongKind || error.code == ENXIO || error.code == EFBIG
    }

    /// Moves the entry file of `key` aside, records the report and forgets the key; see
    /// ``setAside(_:in:now:reason:underlying:)``.
    mutating func setAsideEntry(_ key: String, now: Date, reason: String, underlying: (any Error)?) throws {
        let (shardName, file) = Self.location(of: key)
        if let shard = try shard(shardName, create: false, now: now) {
            try record(Self.setAside(file, in: shard, now: now, reason: reason, underlying: underlying))
        }
        try forget(key, now: now)
    }

    /// Moves `name` aside as `<name>.corrupt-<yyyyMMdd-HHmmss>` (never deletes it) and returns the
    /// ``Strata/StrataError/Code/corrupt`` report naming both places, for ``record(_:)``.
    static func setAside(
        _ name: String,
        in folder: StoreFolder,
        now: Date,
        reason: String,
        underlying: (any Error)? = nil
    ) throws -> StrataError {
        let stamp = Self.stamp(now)
        var destination = name + ".corrupt-" + stamp
        var attempt = 1
        // Never over an item at the name, however late it came: the rename itself refuses to replace one.
        while true {
            do throws(POSIXCallError) {
                try folder.renameWithoutReplacing(name, to: destination)
                break
            } catch  where error.alreadyExists && attempt < 1_000 {
                attempt += 1
                destination = name + ".corrupt-" + stamp + "-\(attempt)"
            } catch {
                throw error.strataError("Moving the damaged \(folder.qualified(name)) aside")
            }
        }
        return StrataError(
            .corrupt,
            "\(reason): \(folder.qualified(name)); moved aside to \(destination)",
            underlying: underlying
        )
    }

    /// Keeps a report: in the last 100, in the count, and for the diagnostics closure.
    mutating func record(_ report: StrataError) {
        corruptionCount += 1
        corruptionReports.append(report)
        if corruptionReports.count > 100 { corruptionReports.removeFirst() }
        pendingReports.append(report)
    }

    /// Writes `bytes` to `name` in the root folder atomically; a folder in the way is set aside (once).
    mutating func replace(_ name: String, with bytes: [UInt8], now: Date) throws {
        for attempt in 0..<2 {
            do {
                try root.writeAtomically(bytes, to: name, temporaryPrefix: Self.temporaryPrefix, durable: durable)
                return
            } catch {
                guard attempt == 0, error.isWrongKind || error.code == ENOTEMPTY || error.code == EEXIST else {
                    throw error.strataError("Writing \(name)")
                }
                try record(Self.setAside(name, in: root, now: now, reason: "A folder where the store keeps a file"))
            }
        }
    }

    /// `yyyyMMdd-HHmmss` in UTC.
    private static func stamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(parts.year, 4) + pad(parts.month, 2) + pad(parts.day, 2) + "-" + pad(parts.hour, 2)
            + pad(parts.minute, 2) + pad(parts.second, 2)
    }

    /// The error of an intact entry file (its seal holds: the store wrote it, and nothing changed it since) whose
    /// header does not decode with the store's decoder: written with other coders (a key strategy), so it is no damage
    /// and is left where it is.
    static func writtenWithOtherCoders(_ file: String, _ error: any Error) -> StrataError {
        StrataError(
            .dataSerialization,
            "The entry file \(file) is intact, but its key and dates do not decode with this store's decoder: it was "
                + "written with other coders (a key strategy?); open the store with the coders that wrote it. The file "
                + "is left as it is",
            underlying: error
        )
    }
}
