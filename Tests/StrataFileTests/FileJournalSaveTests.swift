import Foundation
import Strata
import StrataFile
import StrataTesting
import Testing

/// The access journal (`.strata-index`) is written only when the index changed since it was saved: a store flushed
/// from a background task and then released on the main thread writes nothing as it goes. Before, every release, every
/// `flush()` and every `removeExpired()` rewrote the whole journal (one line per entry), changed or not.
struct FileJournalSaveTests {
    private static let marked = Date(timeIntervalSince1970: 1_000_000_000)

    /// Dates the journal file on disk back to 2001: a save writes a new file (renamed over it), of today's date.
    private func markJournal(_ folder: TemporaryFolder) throws {
        let path = folder.storeURL().appendingPathComponent(".strata-index").path
        try FileManager.default.setAttributes([.modificationDate: Self.marked], ofItemAtPath: path)
    }

    /// Whether the journal file on disk is the one ``markJournal(_:)`` dated back.
    private func journalIsMarked(_ folder: TemporaryFolder) throws -> Bool {
        let path = folder.storeURL().appendingPathComponent(".strata-index").path
        return try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == Self.marked
    }

    @Test func aStoreFlushedAndThenReleasedWritesNoJournalAsItGoes() throws {
        // Given a store written to, read, and flushed
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore()
        for key in ["a", "b", "c"] { try store?.setValue(Data(key.utf8), forKey: key) }
        _ = store?.value(forKey: "a")
        store?.flush()
        try markJournal(folder)

        // When it is flushed again and removes nothing expired, then released
        store?.flush()
        #expect(try store?.removeExpired() == 0)
        store = nil

        // Then the journal is the one the first flush wrote, and the order it holds is the store's
        #expect(try journalIsMarked(folder))
        #expect(try folder.makeStore().keysByRecency == ["a", "c", "b"])
    }

    @Test func aReadAfterTheFlushIsSavedWhenTheStoreIsReleased() throws {
        // Given a flushed store
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore()
        for key in ["a", "b", "c"] { try store?.setValue(Data(key.utf8), forKey: key) }
        store?.flush()
        try markJournal(folder)

        // When a key is read, and the store released
        _ = store?.value(forKey: "a")
        store = nil

        // Then the journal was written again, with the read's order
        #expect(try !journalIsMarked(folder))
        #expect(try folder.makeStore().keysByRecency == ["a", "c", "b"])
    }
}
