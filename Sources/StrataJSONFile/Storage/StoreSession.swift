import Foundation
import Strata
import StrataStorage

/// The `session` file of a durable store: which boot of the machine last opened it, and whether that session
/// closed cleanly.
///
/// A durable write fsyncs its entry file and its folder but not its index line: a crash of the process
/// loses no line (the kernel holds it), and only a crash of the machine can. So a store that was left open
/// by a session of another boot may lack index lines for acknowledged writes, and is rebuilt from its entry
/// files when it opens; any other open replays the index.
enum StoreSession {
    static let fileName = "session"

    /// What the file says.
    struct State: Equatable {
        var bootID: String
        var isClean: Bool

        /// What ``StoreSession/read(in:)`` gives for something at the name that cannot be read (a socket, a file
        /// without permission): a session that did not close, of no known boot.
        static let unreadable = State(bootID: "", isClean: false)
    }

    /// An identifier of the current boot of the machine; `nil` when the platform gives none (then a durable
    /// store fsyncs every index line).
    static let currentBootID: String? = {
        #if os(Linux)
            guard let folder = try? StoreFolder.open("/proc/sys/kernel/random", create: false),
                let data = try? folder.readFile("boot_id", limit: 256)
            else { return nil }
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : text
        #elseif canImport(Darwin)
            var size = 0
            guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 1 else { return nil }
            var bytes = [CChar](repeating: 0, count: size)
            guard sysctlbyname("kern.bootsessionuuid", &bytes, &size, nil, 0) == 0 else { return nil }
            let text = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return text.isEmpty ? nil : text
        #else
            return nil
        #endif
    }()

    /// The file's state; `nil` when there is none (a link, a folder or a long file there is not one).
    ///
    /// Something there that cannot be read (a socket, a file without permission, an I/O error) is a session that
    /// did not close: nothing proves it did, so the index is rebuilt from the entry files, never skipped.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when the process runs out of descriptors or memory reading it: a
    ///   passing shortage, which fails the open rather than cost a rebuild.
    static func read(in root: StoreFolder) throws(StrataError) -> State? {
        do {
            guard let data = try root.readFile(fileName, limit: 256) else { return nil }
            return parse(data)
        } catch {
            if error.isLink || error.isWrongKind || error.isTooLong || error.isNotFound { return nil }
            if error.isOutOfResources { throw error.strataError("Reading the store's session") }
            return .unreadable
        }
    }

    /// The state the file's bytes say: `<boot id> open` or `<boot id> clean`; `nil` for anything else.
    ///
    /// The fields are split on the space byte: split as text, a space followed by a combining mark was one character,
    /// and a boot identifier held a space.
    static func parse(_ bytes: some Collection<UInt8>) -> State? {
        let fields = bytes.split(separator: UInt8(ascii: " "))
        guard fields.count == 2 else { return nil }
        let state = String(decoding: fields[1], as: UTF8.self)
        guard state == "open" || state == "clean" else { return nil }
        return State(bootID: String(decoding: fields[0], as: UTF8.self), isClean: state == "clean")
    }

    /// The file's bytes for `state`.
    static func bytes(of state: State) -> [UInt8] {
        Array((state.bootID + (state.isClean ? " clean" : " open")).utf8)
    }
}
