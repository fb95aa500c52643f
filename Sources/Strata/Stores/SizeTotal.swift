/// The exact sum of a store's sizes or costs, read saturating at `Int.max`.
///
/// A store adds each entry's size as it comes and takes the same size away as it goes. The sizes are a caller's
/// numbers, or a file's claim, so they can add up past `Int.max`; the sum is kept whole underneath (64 bits and a
/// count of wraps), so that taking entries away after it passed `Int.max` brings ``value`` back to the true figure
/// rather than to one that drifted.
@usableFromInline
package struct SizeTotal: Sendable {
    /// The low 64 bits of the exact sum.
    @usableFromInline var low: UInt64 = 0
    /// The times ``low`` wrapped past `UInt64.max`, less the times it wrapped back below zero: one per 2^64 added at
    /// most, so it cannot overflow.
    @usableFromInline var carries = 0

    /// An empty total.
    @inlinable
    package init() {}

    /// The sum, or `Int.max` when it is larger.
    @inlinable
    package var value: Int { carries == 0 ? Int(exactly: low) ?? .max : .max }

    /// Adds a size; a negative one counts as 0.
    @inlinable
    package mutating func add(_ size: Int) {
        let (sum, wrapped) = low.addingReportingOverflow(UInt64(max(size, 0)))
        low = sum
        if wrapped { carries += 1 }
    }

    /// Takes away a size added before; a negative one counts as 0.
    @inlinable
    package mutating func subtract(_ size: Int) {
        let (difference, wrapped) = low.subtractingReportingOverflow(UInt64(max(size, 0)))
        low = difference
        if wrapped { carries -= 1 }
    }
}
