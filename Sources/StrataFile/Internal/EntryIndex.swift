import Foundation
import Strata
import StrataStorage

/// The in-memory index of a store: every entry's metadata, its least-recently-used order and the store's
/// byte count, loaded once at open so that reads and writes never list or stat the folder.
///
/// A dictionary points into a doubly linked list kept in arrays (O(1) touch, insert and removal of the
/// least recently used). Every read and write also takes the next value of one sequence counter, so that
/// the order survives a restart and two writes in one millisecond still have one. Not thread-safe:
/// ``FileDataSource`` owns it inside a lock.
struct EntryIndex {
    struct Entry {
        var name: EntryName
        var trailer: EntryTrailer
        var lastAccess: Date
        var accessSequence: UInt64
        var fileLength: Int
        /// The write sequence of the put that wrote the entry's data.
        ///
        /// A renewal gives the trailer a newer ``EntryTrailer/writeSequence`` (so that a read overlapping it reads
        /// again) but keeps this one: a put that took its sequence before the renewal is still the later write.
        var putSequence: UInt64
        /// The entry file as the store wrote it, or read it when it opened: a file at the entry's name with this
        /// stamp is the store's, removed without reading its trailer again; `nil` when it could not be taken.
        var stamp: FileStamp?
        var previous = -1
        var next = -1

        /// The bytes of the entry's key and metadata as stored: the trailer after its data.
        var metadataSize: Int { MetadataBudget.size(of: trailer, fileLength: fileLength) }

        /// Whether a file with the stamp `found` is the entry's own: it has the ``stamp`` the index keeps, or the
        /// index keeps none (then `found` is not taken).
        func isOwnFile(stamped found: @autoclosure () -> FileStamp?) -> Bool {
            guard let stamp else { return true }
            return found() == stamp
        }

        /// An entry whose data its trailer's write wrote.
        init(
            name: EntryName,
            trailer: EntryTrailer,
            lastAccess: Date,
            accessSequence: UInt64,
            fileLength: Int,
            stamp: FileStamp?
        ) {
            self.name = name
            self.trailer = trailer
            self.lastAccess = lastAccess
            self.accessSequence = accessSequence
            self.fileLength = fileLength
            self.putSequence = trailer.writeSequence
            self.stamp = stamp
        }
    }

    private(set) var entries: [Entry?] = []
    private var freeSlots: [Int] = []
    private var slots: [EntryName: Int] = [:]
    private var head = -1
    private var tail = -1

    /// The sum of the data sizes of the entries, saturating at `Int.max`: a trailer may claim up to 1 TiB for a
    /// sparse file that takes no disk, so the sizes found at open can add up past it.
    var totalSize: Int { sizes.value }

    /// The exact sum of the data sizes: removing entries after it passed `Int.max` brings ``totalSize`` back to the
    /// true figure.
    private var sizes = SizeTotal()

    /// The bytes of the entries' keys and metadata as stored (``Entry/metadataSize``): what the index holds in
    /// memory grows with it.
    private(set) var metadataSize = 0

    /// The last sequence number handed out.
    private(set) var sequence: UInt64 = 0

    /// The earliest expiry of any entry, or later; expired entries are searched only once it has passed.
    private(set) var earliestExpiry = Date.distantFuture

    /// The keys of the entries by tag, for the entries that have tags: group invalidation in time proportional to
    /// the group.
    private(set) var keysByTag: [String: Set<String>] = [:]

    /// Moved by every change of the entries or their order: what tells whether the access journal saved at one
    /// revision is still the index's.
    private(set) var revision: UInt64 = 0

    /// The number of entries.
    var count: Int { slots.count }

    /// Returns the next sequence number.
    mutating func nextSequence() -> UInt64 {
        sequence += 1
        return sequence
    }

    /// Makes later sequence numbers larger than `value`.
    mutating func observe(sequence value: UInt64) {
        sequence = max(sequence, value)
    }

    /// The entry with this name.
    func entry(_ name: EntryName) -> Entry? {
        slots[name].flatMap { entries[$0] }
    }

    /// Marks the entry most recently used at `date`; returns it.
    mutating func touch(_ name: EntryName, at date: Date) -> Entry? {
        guard let slot = slots[name], entries[slot] != nil else { return nil }
        revision &+= 1
        let sequence = nextSequence()
        entries[slot]?.accessSequence = sequence
        entries[slot]?.lastAccess = date
        moveToHead(slot)
        return entries[slot]
    }

    /// Takes `stamp` as the stamp of the file of the entry `name`, which the store changed and restored (its
    /// modification time moved); its place in the order stays.
    mutating func restamp(_ name: EntryName, _ stamp: FileStamp?) {
        guard let slot = slots[name] else { return }
        revision &+= 1
        entries[slot]?.stamp = stamp
    }

    /// Inserts or replaces an entry as the most recently used.
    mutating func insert(_ entry: Entry) {
        remove(entry.name)
        revision &+= 1
        var entry = entry
        entry.previous = -1
        entry.next = head
        let slot = entries.store(entry, reusing: &freeSlots)
        if head >= 0 { entries[head]?.previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        slots[entry.name] = slot
        sizes.add(entry.trailer.payloadSize)
        metadataSize += entry.metadataSize
        for tag in entry.trailer.tags { keysByTag[tag, default: []].insert(entry.trailer.key) }
        if let expiresAt = entry.trailer.expiresAt, expiresAt < earliestExpiry { earliestExpiry = expiresAt }
    }

    /// Removes an entry; returns it.
    @discardableResult
    mutating func remove(_ name: EntryName) -> Entry? {
        guard let slot = slots.removeValue(forKey: name), let entry = entries[slot] else { return nil }
        revision &+= 1
        let previous = entry.previous
        let next = entry.next
        if previous >= 0 { entries[previous]?.next = next } else { head = next }
        if next >= 0 { entries[next]?.previous = previous } else { tail = previous }
        entries[slot] = nil
        freeSlots.append(slot)
        sizes.subtract(entry.trailer.payloadSize)
        metadataSize -= entry.metadataSize
        for tag in entry.trailer.tags {
            keysByTag[tag]?.remove(entry.trailer.key)
            if keysByTag[tag]?.isEmpty == true { keysByTag[tag] = nil }
        }
        if slots.isEmpty { removeAll() } else { compactIfSparse() }
        return entry
    }

    /// The number of slots the index holds, entries and free ones: what it takes in memory. For tests.
    var slotCount: Int { entries.count }

    /// Gives back the room of removed entries when at most a quarter of the slots (past 64) hold one: a store that
    /// held a million entries and now holds a thousand keeps the slots of a thousand (freed slots were reused, but
    /// never released). The entries are copied in recency order; O(entries), after three quarters of the slots
    /// were freed, so O(1) amortized per removal.
    private mutating func compactIfSparse() {
        guard entries.count > 64, count <= entries.count / 4 else { return }
        var compacted: [Entry?] = []
        compacted.reserveCapacity(count)
        // A dictionary keeps its capacity as keys go: a new one of the entries' size.
        var positions = [EntryName: Int](minimumCapacity: count)
        var slot = head
        while slot >= 0, var entry = entries[slot] {
            slot = entry.next
            let position = compacted.count
            entry.previous = position - 1
            entry.next = slot >= 0 ? position + 1 : -1
            positions[entry.name] = position
            compacted.append(entry)
        }
        entries = compacted
        slots = positions
        freeSlots = []
        head = entries.isEmpty ? -1 : 0
        tail = entries.count - 1
    }

    /// The least recently used entry.
    var leastRecentlyUsed: Entry? { tail >= 0 ? entries[tail] : nil }

    /// The most recently used entry: the one just written, after a write.
    var mostRecentlyUsed: Entry? { head >= 0 ? entries[head] : nil }

    /// The names of the entries expired at `date`, and resets the earliest expiry to the rest's.
    mutating func expiredNames(at date: Date) -> [EntryName] {
        guard date >= earliestExpiry else { return [] }
        var expired: [EntryName] = []
        var earliest = Date.distantFuture
        for case let entry? in entries {
            guard let expiresAt = entry.trailer.expiresAt else { continue }
            if expiresAt <= date {
                expired.append(entry.name)
            } else if expiresAt < earliest {
                earliest = expiresAt
            }
        }
        earliestExpiry = earliest
        return expired
    }

    /// Every entry, most recently used first.
    var entriesByRecency: [Entry] {
        var result: [Entry] = []
        result.reserveCapacity(count)
        var slot = head
        while slot >= 0, let entry = entries[slot] {
            result.append(entry)
            slot = entry.next
        }
        return result
    }

    /// Removes every entry; the sequence counter keeps counting.
    mutating func removeAll() {
        revision &+= 1
        entries.removeAll()
        freeSlots.removeAll()
        slots.removeAll()
        head = -1
        tail = -1
        sizes = SizeTotal()
        metadataSize = 0
        earliestExpiry = .distantFuture
        keysByTag.removeAll()
    }

    private mutating func moveToHead(_ slot: Int) {
        guard slot != head, let entry = entries[slot] else { return }
        let previous = entry.previous
        let next = entry.next
        if previous >= 0 { entries[previous]?.next = next } else { head = next }
        if next >= 0 { entries[next]?.previous = previous } else { tail = previous }
        entries[slot]?.previous = -1
        entries[slot]?.next = head
        if head >= 0 { entries[head]?.previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}
