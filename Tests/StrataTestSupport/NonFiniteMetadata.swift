import Foundation
import Strata

/// Metadata with one date that is not a finite time, named by a string so that a parameterized test can show its
/// argument: describing such a `Date` traps in Foundation.
public enum NonFiniteMetadata: Sendable {
    /// The names ``metadata(_:)`` takes: which date is NaN or infinite.
    public static let cases = ["expiresAt +inf", "storedAt nan", "freshUntil -inf"]

    /// The metadata one of ``cases`` names; empty metadata for any other name.
    public static func metadata(_ name: String) -> EntryMetadata {
        switch name {
        case "expiresAt +inf": EntryMetadata(expiresAt: Date(timeIntervalSince1970: .infinity))
        case "storedAt nan": EntryMetadata(storedAt: Date(timeIntervalSince1970: .nan))
        case "freshUntil -inf": EntryMetadata(freshUntil: Date(timeIntervalSince1970: -.infinity))
        default: EntryMetadata()
        }
    }
}
