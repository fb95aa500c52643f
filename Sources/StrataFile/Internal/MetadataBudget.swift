import Strata
import StrataStorage

/// The bytes of keys and metadata taken into memory from a file store's folder so far, against its
/// `maximumMetadataSize`: the one rule that bounds what a store's open and an inspector's listing may hold, each entry
/// counted as stored (its trailer after its data, ``EntryIndex/Entry/metadataSize``).
struct MetadataBudget {
    /// The most bytes of keys and metadata that may be taken.
    let limit: Int
    /// The bytes taken so far.
    private(set) var taken = 0

    /// Starts a budget of `limit` bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// The bytes of key and metadata an entry file of `length` bytes whose trailer is `trailer` holds.
    static func size(of trailer: EntryTrailer, fileLength length: Int) -> Int {
        max(length - trailer.payloadSize, 0)
    }

    /// Takes `bytes`, read from the entry file `fileName` of `folder`; past the limit, throws
    /// ``Strata/StrataError/Code/tooLarge`` naming the limit and the file, followed by `outcome` (what was left
    /// undone).
    mutating func take(_ bytes: Int, at fileName: String, in folder: StoreFolder, outcome: String) throws(StrataError) {
        let (sum, overflow) = taken.addingReportingOverflow(bytes)
        taken = overflow ? .max : sum
        guard taken > limit else { return }
        throw StrataError(
            .tooLarge,
            "The entries of the store folder \(folder.path) take more than its maximumMetadataSize of "
                + "\(limit) bytes of keys and metadata (past it at \(fileName)); \(outcome)"
        )
    }
}
