import Foundation
import Strata
import StrataJSONFile
import Testing

@testable import StrataOffline

/// The outbox's records store never evicts a record: the outbox bounds itself (``Outbox/Limits``). Before, the store
/// kept the JSON-file store's default bound of 256 MiB of keys and metadata, which about 3.2 million records reach
/// (84 bytes each): an outbox whose `maximumWrites` was raised past that had the store delete its oldest records'
/// files, acknowledged writes that a relaunch then never replayed (and a rebuilt index refused the folder as too
/// large).
struct OutboxRecordsStoreTests {
    @Test func theRecordsStoreHasNoBoundThatEvicts() {
        let configuration = Outbox.recordsConfiguration(
            folder: temporaryFolder(),
            durability: .durable,
            diagnostics: nil
        )

        #expect(configuration.maximumMetadataSize == .max)
        #expect(configuration.countLimit == nil && configuration.maxSize == nil && configuration.timeToLive == nil)
    }
}
