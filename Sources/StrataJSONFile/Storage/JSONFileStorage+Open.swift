import Foundation
import Strata

extension JSONFileStorage {
    /// Opens the store's folder: replays the index (no entry file is read) or, when the index is missing
    /// or damaged, rebuilds it from the entry files' metadata.
    ///
    /// - Parameters:
    ///   - now: The time, for naming files moved aside.
    ///   - decodeHeader: Decodes an entry file's metadata; used only when rebuilding.
    mutating func open(now: Date, decodeHeader: (Data) throws -> EntryHeader) throws {
        do {
            try POSIXFile.makeFolder(root)
            try POSIXFile.makeFolder(entriesFolder)
            if durable { try POSIXFile.syncFolder(root) }
        } catch {
            throw StrataError.io("Creating the store folder \(root) failed", underlying: error)
        }
        let previous = StoreSession.read(root: root)
        try openIndex(after: previous, now: now, decodeHeader: decodeHeader)
        try recordSession(after: previous)
    }

    /// Replays the index, or rebuilds it from the entry files when it is missing, damaged, or may lack
    /// lines of acknowledged durable writes (a durable session of another boot did not close).
    private mutating func openIndex(
        after previous: StoreSession.State?,
        now: Date,
        decodeHeader: (Data) throws -> EntryHeader
    ) throws {
        if let previous, !previous.isClean, previous.bootID != StoreSession.currentBootID {
            try rebuild(now: now, decodeHeader: decodeHeader)
            return
        }
        let indexData: Data?
        do {
            indexData = try POSIXFile.read(indexPath)
        } catch {
            throw StrataError.io("Reading the index \(indexPath) failed", underlying: error)
        }
        guard let indexData else {
            // A new store, or one whose index was deleted: the entry files are the truth.
            try rebuild(now: now, decodeHeader: decodeHeader)
            return
        }
        do {
            let replay = try IndexJournal.replay(indexData)
            load(replay.records, maxSequence: replay.maxSequence)
            journalRecordCount = replay.recordCount
            if replay.hasTornTail || replay.recordCount > 2 * replay.records.count + 1024 {
                try compact()
            } else {
                try reopenJournal()
            }
        } catch let error as IndexJournal.ParseError {
            try quarantine(indexPath, now: now, reason: "Corrupt index (\(error))", underlying: error)
            try rebuild(now: now, decodeHeader: decodeHeader)
        }
    }

    /// Records this session in the `session` file: a durable store writes its boot there (open, not clean)
    /// and from then on fsyncs no index line; any other store removes the file, whose promise its
    /// unsynced lines would break.
    private mutating func recordSession(after previous: StoreSession.State?) throws {
        do {
            guard durable, let bootID = StoreSession.currentBootID else {
                if previous != nil { try StoreSession.remove(root: root) }
                syncsEveryJournalLine = durable
                return
            }
            try StoreSession.write(StoreSession.State(bootID: bootID, isClean: false), root: root)
            sessionBootID = bootID
            syncsEveryJournalLine = false
        } catch {
            throw StrataError.io("Writing the session file in \(root) failed", underlying: error)
        }
    }

    /// Rebuilds the index from the entry files, moving aside those that cannot be read, and writes it.
    private mutating func rebuild(now: Date, decodeHeader: (Data) throws -> EntryHeader) throws {
        var rebuilt: [String: IndexRecord] = [:]
        var hashes: Set<String> = []
        var maxSequence: UInt64 = 0
        do {
            for shard in try POSIXFile.names(in: entriesFolder) {
                let folder = entriesFolder + "/" + shard
                for name in try POSIXFile.names(in: folder) where name.hasSuffix(".json") && !name.hasPrefix(".") {
                    let path = folder + "/" + name
                    guard let data = try POSIXFile.read(path) else { continue }
                    let header: EntryHeader
                    do {
                        header = try decodeHeader(data)
                        guard location(of: header.key).path == path else {
                            throw StrataError(.corrupt, "The file holds the key \"\(header.key)\" of another file")
                        }
                    } catch {
                        try quarantine(
                            path,
                            now: now,
                            reason: "Corrupt entry file",
                            underlying: StrataError.serialization(error, "Decoding the entry file failed")
                        )
                        continue
                    }
                    rebuilt[header.key] = header.record
                    hashes.insert(String(name.dropLast(5)))
                    maxSequence = max(maxSequence, header.sequence)
                }
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError.io("Reading the entry folder \(entriesFolder) failed", underlying: error)
        }
        load(rebuilt, maxSequence: maxSequence)
        try compact()
        try sweep(keepingHashes: hashes)
    }

    /// Moves a damaged file aside as `<name>.corrupt-<yyyyMMdd-HHmmss>` and records a ``StrataError``
    /// with code `corrupt` that names it.
    ///
    /// - Returns: The report.
    @discardableResult
    mutating func quarantine(_ path: String, now: Date, reason: String, underlying: (any Error)?) throws
        -> StrataError
    {
        let stamp = Self.stamp(now)
        var destination = path + ".corrupt-" + stamp
        var attempt = 1
        while POSIXFile.exists(destination) {
            attempt += 1
            destination = path + ".corrupt-" + stamp + "-\(attempt)"
        }
        do {
            try POSIXFile.move(path, to: destination)
        } catch {
            throw StrataError.io("Moving the corrupt file \(path) aside failed", underlying: error)
        }
        let report = StrataError(
            .corrupt,
            "\(reason): \(path); moved aside to \(destination)",
            underlying: underlying
        )
        corruptionCount += 1
        corruptionReports.append(report)
        if corruptionReports.count > 100 { corruptionReports.removeFirst() }
        pendingReports.append(report)
        return report
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
}
