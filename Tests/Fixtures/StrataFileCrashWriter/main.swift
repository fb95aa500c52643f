// Writes values into a FileDataSource in a loop and prints each acknowledged write, until killed.
//
// Usage: StrataFileCrashWriter <parent folder> <identifier> <atomic|durable> <first index>
// Write i stores `CrashValue.bytes(i)` under `k<i % 16>` and then prints `ack <i>`.
//
// Modes `atomic-removing` and `durable-removing` also remove: after write i, when i % 5 == 4 the entry `k<(i + 8) % 16>`
// is removed and `ack remove <i>` printed, and when i % 97 == 96 every entry is removed and `ack remove-all <i>`
// printed (for scripts/check-durability, which checks that removals are flushed too).
//
// Mode `probe` only tries to open the store once: it prints `opened` (exit 0) or `in use` (exit 3), so a test
// can tell from a second process whether a folder is still locked.
//
// Mode `descriptors` opens the store with every descriptor of the process taken but `spare` of them, for each
// `spare` from 0 to <first>, and prints `spare <n>: <entries>` or `spare <n>: error <code> <message>` per open.
//
// Mode `read-descriptors` opens the store, takes every descriptor of the process, then reads the key `k` (ignoring
// <first>): `get: <value or error code>` from `get`, `value: <value or nil>` from `value(forKey:)` with
// `reported: <codes>` (space-separated) from its diagnostics, and `repository: <value or error code>, main asked <n>` from a
// `.cacheSync` read of a `CacheRepository` whose main holds `main` under `k`.
import Foundation
import Strata
import StrataFile
import StrataStorage
import StrataTesting

let arguments = CommandLine.arguments
guard arguments.count == 5, let first = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: StrataFileCrashWriter <folder> <identifier> <mode> <first>\n".utf8))
    exit(2)
}
if arguments[3] == "probe" {
    do {
        _ = try FileDataSource(
            configuration: .init(location: .url(URL(fileURLWithPath: arguments[1])), identifier: arguments[2])
        )
        print("opened")
        exit(0)
    } catch let error as StrataError where error.code == .alreadyInUse {
        print("in use")
        exit(3)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}
if arguments[3] == "descriptors" {
    openWithFewDescriptors(location: URL(fileURLWithPath: arguments[1]), identifier: arguments[2], upTo: first)
    exit(0)
}
if arguments[3] == "read-descriptors" {
    readWithNoDescriptors(location: URL(fileURLWithPath: arguments[1]), identifier: arguments[2])
    exit(0)
}
let durability: StoreDurability = arguments[3].hasPrefix("durable") ? .durable : .atomic
let removes = arguments[3].hasSuffix("-removing")
do {
    let store = try FileDataSource(
        configuration: .init(
            location: .url(URL(fileURLWithPath: arguments[1])),
            identifier: arguments[2],
            durability: durability
        )
    )
    var index = first
    while true {
        // Sizes vary from a few bytes to 24 KB so that kills land in writes of every length.
        let length = (index &* 7_919) % 24_000 + 8
        var bytes = [UInt8](repeating: 0, count: length)
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        for position in 0..<length {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[position] = UInt8(truncatingIfNeeded: state >> 56)
        }
        withUnsafeBytes(of: UInt64(index).littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
        try store.setValue(Data(bytes), forKey: "k\(index % 16)")
        // One unbuffered write per acknowledgement, so a kill never hides an acknowledged write.
        FileHandle.standardOutput.write(Data("ack \(index)\n".utf8))
        if removes, index % 5 == 4 {
            _ = try store.removeValue(forKey: "k\((index + 8) % 16)")
            FileHandle.standardOutput.write(Data("ack remove \(index)\n".utf8))
        }
        if removes, index % 97 == 96 {
            try store.removeAll()
            FileHandle.standardOutput.write(Data("ack remove-all \(index)\n".utf8))
        }
        index += 1
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}

/// Mode `descriptors`: each open of the store with only `spare` descriptors free, `spare` from 0 to `last`.
func openWithFewDescriptors(location: URL, identifier: String, upTo last: Int) {
    _ = FileDescriptor.lowerOpenLimit(to: 256)
    var fillers: [Int32] = []
    for spare in 0...max(last, 0) {
        while true {
            let descriptor = open("/dev/null", O_RDONLY)
            guard descriptor >= 0 else { break }
            fillers.append(descriptor)
        }
        for _ in 0..<min(spare, fillers.count) { _ = close(fillers.removeLast()) }
        let said: String
        do {
            let store = try FileDataSource(configuration: .init(location: .url(location), identifier: identifier))
            said = "\(store.count)"
        } catch let error as StrataError {
            said = "error \(error.code) \(error.message)"
        } catch {
            said = "error \(error)"
        }
        FileHandle.standardOutput.write(Data("spare \(spare): \(said)\n".utf8))
    }
}

/// Mode `read-descriptors`: reads of `k` in a store opened before every descriptor of the process was taken.
func readWithNoDescriptors(location: URL, identifier: String) {
    let reports = Locked<[String]>([])
    let store: FileDataSource
    do {
        store = try FileDataSource(
            configuration: .init(
                location: .url(location),
                identifier: identifier,
                diagnostics: { report in reports.withLock { $0.append("\(report.code)") } }
            )
        )
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
    _ = FileDescriptor.lowerOpenLimit(to: 256)
    let main = ScriptedDataSource<Data>(["k": Data("main".utf8)])
    let repository = CacheRepository(main: main, cache: store)
    let done = DispatchSemaphore(value: 0)
    let said = Locked<[String]>([])
    // The descriptors are taken once the task runs: the executor needs a few of its own to start.
    Task {
        var fillers: [Int32] = []
        while true {
            let descriptor = open("/dev/null", O_RDONLY)
            guard descriptor >= 0 else { break }
            fillers.append(descriptor)
        }
        func outcome(_ read: () async throws -> Data) async -> String {
            do {
                return String(decoding: try await read(), as: UTF8.self)
            } catch let error as StrataError {
                return "error \(error.code) \(error.message)"
            } catch {
                return "error \(error)"
            }
        }
        let got = await outcome { try await store.get(KeyQuery("k")) }
        let value = store.value(forKey: "k").map { String(decoding: $0, as: UTF8.self) } ?? "nil"
        let fromRepository = await outcome { try await repository.get(KeyQuery("k"), operation: .cacheSync) }
        said.withLock {
            $0 = [
                "get: \(got)", "value: \(value)", "reported: \(reports.withLock { $0.joined(separator: " ") })",
                "repository: \(fromRepository), main asked \(main.callCount(.get))",
            ]
        }
        for descriptor in fillers { _ = close(descriptor) }
        done.signal()
    }
    done.wait()
    for line in said.withLock({ $0 }) { FileHandle.standardOutput.write(Data("\(line)\n".utf8)) }
}
