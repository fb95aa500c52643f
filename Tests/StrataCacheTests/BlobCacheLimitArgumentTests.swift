import Foundation
import Strata
import StrataCache
import StrataNetwork
import StrataTestSupport
import Testing

/// A persistent limit below 1 is refused by `BlobCache` naming its own setting, not the file store's `countLimit`
/// the caller never set.
struct BlobCacheLimitArgumentTests {
    @Test(arguments: [(0, nil), (nil, 0), (-1, nil)] as [(Int?, Int?)])
    func aPersistentLimitBelowOneIsRefusedByItsName(maxCount: Int?, maxSize: Int?) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var configuration = BlobCache.Configuration()
        configuration.persistent.location = .url(folder.url)
        configuration.persistent.maxCount = maxCount
        configuration.persistent.maxSize = maxSize

        let error = #expect(throws: StrataError.self) {
            _ = try BlobCache(using: HTTPClient(), configuration: configuration)
        }

        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(maxCount != nil ? "maxCount" : "maxSize") == true)
    }
}
