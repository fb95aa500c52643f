/// A query for the values with the given identifiers, answered in the same order.
public struct IdsQuery<ID: Hashable & Sendable & CustomStringConvertible>: MultiKeyedQuery, Hashable {
    /// The identifiers.
    public let ids: [ID]

    /// Creates a query for several values.
    ///
    /// - Parameter ids: The identifiers, in the order the answer should have.
    public init(_ ids: [ID]) {
        self.ids = ids
    }

    /// The identifiers as string keys.
    public var keys: [String] { ids.map { $0.description } }

    /// The query for the ids at `positions`, in that order.
    ///
    /// - Parameter positions: Indices into ``ids``; one out of range makes the answer `nil`.
    public func selecting(positions: [Int]) -> (any MultiKeyedQuery)? {
        guard positions.allSatisfy(ids.indices.contains) else { return nil }
        return IdsQuery(positions.map { ids[$0] })
    }
}
