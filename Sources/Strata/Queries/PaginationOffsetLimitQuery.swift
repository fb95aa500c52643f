/// A query for one page of the values a source holds, in the source's stable order.
///
/// Key-value sources order their entries by key, so pages do not shift when an entry is read.
public struct PaginationOffsetLimitQuery: Query, Hashable {
    /// How many values to skip; zero or more.
    public let offset: Int

    /// How many values at most to return; one or more.
    public let limit: Int

    /// Creates a page query.
    ///
    /// - Parameters:
    ///   - offset: How many values to skip; negative values count as zero.
    ///   - limit: How many values at most to return; values below one count as one.
    public init(offset: Int, limit: Int) {
        self.offset = max(0, offset)
        self.limit = max(1, limit)
    }
}

extension PaginationOffsetLimitQuery {
    /// The page of `items` this query names: at most ``limit`` elements from ``offset`` on, empty past the end.
    ///
    /// - Parameter items: All the items, in the source's stable order.
    public func page<Items: RandomAccessCollection>(of items: Items) -> Items.SubSequence where Items.Index == Int {
        // No overflow for any offset or limit: both are clamped to what is left before adding.
        let start = items.startIndex + min(offset, items.count)
        return items[start..<(start + min(limit, items.endIndex - start))]
    }
}
