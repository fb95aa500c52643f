import Strata

/// Room reserved in a ``WriteBehind`` queue, given back once: by the write it was reserved for, once queued, or when
/// nothing holds the reservation any more (the write was never made).
///
/// Lets a caller reserve room before it takes a turn that other callers wait for (a ``BlobCache`` download reserves
/// it before its write-back takes its key's turn), so that waiting for room never holds anyone else up.
final class ReservedRoom: Sendable {
    /// The cost still reserved: zero once taken over or given back.
    private let cost: Locked<Int>
    private let giveBack: @Sendable (Int) -> Void

    init(cost: Int, giveBack: @escaping @Sendable (Int) -> Void) {
        self.cost = Locked(cost)
        self.giveBack = giveBack
    }

    deinit {
        release()
    }

    /// Takes the reservation over: the cost to give back (``WriteBehind/release(_:)``) once the write is queued;
    /// zero when it was taken or given back already.
    func take() -> Int {
        cost.withLock { cost in
            defer { cost = 0 }
            return cost
        }
    }

    /// Gives the reservation back, unless it was taken over or given back already.
    func release() {
        let reserved = take()
        if reserved > 0 { giveBack(reserved) }
    }
}

extension WriteBehind {
    /// Reserves room for `cost` as ``reserveRoom(for:)`` does, as a reservation given back when let go.
    ///
    /// - Returns: The reservation; `nil` when the caller was refused or cancelled.
    func reservedRoom(for cost: Int) async -> ReservedRoom? {
        guard let reserved = await reserveRoom(for: cost) else { return nil }
        return ReservedRoom(cost: reserved) { [self] in release($0) }
    }
}
