import Foundation
import Strata
import StrataFile
import StrataJSONFile
import StrataTesting

/// Stores built with the libraries, then released so the tool can take their folders.
enum StoreFixtures {
    /// A file store `store` in `folder` holding `a`, `b` (ETag `"v1"`) and `c`, written in that order, plus
    /// `old`, written first with a 60-second lifetime in 2023 (so expired now). Returns its folder's path.
    @discardableResult
    static func fileStore(in folder: TemporaryFolder, extraCount: Int = 0) throws -> String {
        let clock = ManualClock()
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "store", clock: clock)
        )
        try store.setValue(Data("expired".utf8), forKey: "old", options: .init(timeToLive: .seconds(60)))
        clock.advance(by: .seconds(1))
        try store.setValue(Data(repeating: 1, count: 100), forKey: "a")
        clock.advance(by: .seconds(1))
        try store.setValue(Data(repeating: 2, count: 200), forKey: "b", options: .init(eTag: "\"v1\""))
        clock.advance(by: .seconds(1))
        try store.setValue(Data(repeating: 3, count: 300), forKey: "c")
        for index in 0..<extraCount { try store.setValue(Data("\(index)".utf8), forKey: "extra-\(index)") }
        return folder.path("store")
    }

    /// A JSON-file store `json` in `folder` holding `ada`, `grace` and `old` (maximum age 60 s, written in
    /// 2023, so expired now). Returns its folder's path.
    @discardableResult
    static func jsonStore(in folder: TemporaryFolder) throws -> String {
        let clock = ManualClock()
        let store = try JSONFileDataSource<[String: String]>(
            folder: folder.url.appendingPathComponent("json"),
            clock: clock
        )
        try store.setValue(["name": "Old"], forKey: "old", timeToLive: .seconds(60))
        clock.advance(by: .seconds(1))
        try store.setValue(["name": "Ada"], forKey: "ada")
        clock.advance(by: .seconds(1))
        try store.setValue(["name": "Grace"], forKey: "grace")
        return folder.path("json")
    }

    /// The path of the file store entry file holding `key` (found by its content).
    static func fileEntry(holding marker: UInt8, count: Int, in store: String) throws -> String {
        for name in try FileManager.default.contentsOfDirectory(atPath: store) where name.hasSuffix(".strata") {
            let data = try Data(contentsOf: URL(fileURLWithPath: store + "/" + name))
            if data.count > count, data.prefix(count).allSatisfy({ $0 == marker }) { return store + "/" + name }
        }
        throw StrataError.notFound("no entry file with \(count) bytes of \(marker)")
    }
}
