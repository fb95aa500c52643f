// A test fixture for StrataJSONFileTests: writes to a JSON-file store in a loop and prints each
// acknowledged operation, until the test kills it.
//
// Usage: StrataJSONFileCrashWriter <folder> <atomic|durable> <first version> <key count>
//
// Operation `v` targets key `k<v % keyCount>`: it removes the key when `v % 7 == 3`, and otherwise stores
// `{"key", "version": v, "filler": <v % 1500 times "x">}`. After each operation it prints `ACK <v>`.
import Foundation
import StrataJSONFile

struct CrashPayload: Codable, Sendable {
    var key: String
    var version: Int
    var filler: String
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let first = Int(arguments[3]), let keyCount = Int(arguments[4]), keyCount > 0 else {
    FileHandle.standardError.write(
        Data("usage: StrataJSONFileCrashWriter <folder> <atomic|durable> <first> <keys>\n".utf8)
    )
    exit(2)
}

do {
    let store = try JSONFileDataSource<CrashPayload>(
        configuration: .init(
            folder: URL(fileURLWithPath: arguments[1]),
            durability: arguments[2] == "durable" ? .durable : .atomic
        )
    )
    FileHandle.standardOutput.write(Data("READY\n".utf8))
    var version = first
    while true {
        let key = "k\(version % keyCount)"
        if version % 7 == 3 {
            try store.removeValue(forKey: key)
        } else {
            let payload = CrashPayload(
                key: key,
                version: version,
                filler: String(repeating: "x", count: version % 1500)
            )
            try store.setValue(payload, forKey: key)
        }
        // A keyed read appends to the index too; exercise that path between writes.
        _ = try store.value(forKey: "k\((version * 5) % keyCount)")
        FileHandle.standardOutput.write(Data("ACK \(version)\n".utf8))
        version += 1
    }
} catch {
    FileHandle.standardError.write(Data("StrataJSONFileCrashWriter failed: \(error)\n".utf8))
    exit(1)
}
