/// Strata's one rule on which hashes must resist collisions.
///
/// **A hash that names a file after a key must resist collisions, unless every read of that file compares the key
/// stored in it.** With the comparison, two keys that collide share one file: the later write replaces the
/// earlier, whose reads then miss, and no read ever returns another key's value. Without it, a key chosen to
/// collide would be handed another key's bytes. So:
///
/// - `StrataFile` names entries with two seeded ``XXHash64``s (128 bits). Each entry's trailer holds its key and
///   every read compares it, so a collision costs one of the two entries, never a wrong value; the names are the
///   on-disk format and stay.
/// - `StrataJSONFile` names entries with ``collisionResistantName(of:)`` (SHA-256) and also compares the key in
///   the file.
/// - `FileCacheProvider` hands its checkouts out as plain files that no one checks against a key, so their names
///   come from ``collisionResistantName(of:)``.
///
/// **Checksums and seals guard against accident, not against an adversary**: ``ContentChecksum`` (an entry's
/// data), ``XXHash64`` (trailers, journals) and `StrataJSONFile`'s entry seal catch bit rot, torn writes and
/// truncation; whoever can write the store's folder can write any bytes anyway. A content version that a server
/// itself produced (``FNV1a128``, for a body without an `ETag`) needs no collision resistance either: that server
/// controls those bytes.
package enum Hashing {
    /// The collision-resistant file name of `key`: 32 lowercase hex digits, the first 128 bits of the SHA-256 of its
    /// UTF-8 bytes.
    ///
    /// The caller normalises the key first where equal strings may differ in bytes (`StrataJSONFile` takes the NFC
    /// form, as Swift compares strings by canonical equivalence).
    package static func collisionResistantName(of key: String) -> String {
        SHA256.hex(of: key, byteCount: 16)
    }
}
