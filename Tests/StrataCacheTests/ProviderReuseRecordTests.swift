import Foundation
import Testing

@testable import StrataCache

/// How a `FileCacheProvider` entry's reuse rule reads from its attributes.
struct ProviderReuseRecordTests {
    /// A variant record this version cannot read (a flag it does not know, a damaged digest) is asked about each time,
    /// never handed out freely. Before, it read as no rule at all.
    @Test(arguments: [[2], [0, 200], [1, 0, 1]] as [[UInt8]])
    func aVariantRecordItCannotReadIsAskedAboutEachTime(after mark: [UInt8]) {
        let attributes = Data("strata-variant:".utf8) + mark
        #expect(FileCacheProvider.Reuse(attributes: attributes) == .unknownVariant)
    }

    /// Attributes the provider never writes (another program's) leave the copy as any other.
    @Test func attributesOfAnotherKindAreNoRule() {
        #expect(FileCacheProvider.Reuse(attributes: Data("colour: red".utf8)) == .free)
        #expect(FileCacheProvider.Reuse(attributes: nil) == .free)
    }
}
