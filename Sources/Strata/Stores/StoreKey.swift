import Foundation

/// The one key rule of Strata's stores: keys are compared by Unicode canonical equivalence (see
/// ``KeyValueStore``).
public enum StoreKey: Sendable {
    /// The canonical (NFC) form of `key`, the form a store hashes into a file name.
    ///
    /// An all-ASCII key is its own NFC form and is returned as it is, after one pass over its bytes.
    ///
    /// - Parameter key: Any key.
    /// - Returns: The key in Unicode Normalization Form C.
    @inlinable
    public static func canonical(_ key: String) -> String {
        isASCII(key) ? key : key.precomposedStringWithCanonicalMapping
    }

    /// Whether every byte of `key` is ASCII.
    ///
    /// - Parameter key: Any key.
    @inlinable
    public static func isASCII(_ key: String) -> Bool {
        key.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 < 0x80 } }
            ?? key.utf8.allSatisfy { $0 < 0x80 }
    }
}
