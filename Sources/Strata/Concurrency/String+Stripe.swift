extension String {
    /// Which of `count` stripes the key falls in, for counters kept per stripe rather than per key: memory stays the same
    /// whatever the number of keys, and two keys that share a stripe only count together. `String` hashes by canonical
    /// equivalence, as the stores compare keys.
    ///
    /// - Parameter count: How many stripes; more than zero.
    package func stripe(among count: Int) -> Int {
        Int(UInt(bitPattern: hashValue) % UInt(count))
    }
}
