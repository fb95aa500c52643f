/// What one read of several entries of a store may still load into memory (``KeyValueStore/maximumReadSize``).
struct StoreReadBudget {
    /// The bound in bytes; `nil` for none.
    private let limit: Int?

    /// The bytes counted so far.
    private var spent = 0

    /// A budget of `limit` bytes, none spent; `nil` for no bound.
    init(limit: Int?) {
        self.limit = limit
    }

    /// Counts the entry under `key`, of `size` bytes, before it is read; one of unknown size is not counted.
    ///
    /// - Parameters:
    ///   - size: The entry's size (``KeyValueStore/storedSize(forKey:)``), asked only when there is a bound.
    ///   - key: The entry's key.
    /// - Throws: ``StrataError/Code/tooLarge`` when the entries counted would pass the bound.
    mutating func spend(_ size: @autoclosure () -> Int?, reading key: String) throws(StrataError) {
        guard let limit, let size = size(), size >= 0 else { return }
        let (total, overflow) = spent.addingReportingOverflow(size)
        guard !overflow, total <= limit else {
            throw StrataError(
                .tooLarge,
                "Reading \(StrataError.quoted(key: key)) (\(size) bytes) would bring this read past the store's "
                    + "maximumReadSize of \(limit) bytes in all, with the \(spent) bytes of the entries before it: "
                    + "read fewer at a time (a page, or fewer keys)"
            )
        }
        spent = total
    }
}
