import Strata

/// The file that says a folder is a Strata store, which kind, and of which layout version: `.strata-store`,
/// one line such as `strata-store 1 file`.
///
/// A store writes it when it makes or first opens its folder; the `strata` tool acts only on folders that carry
/// it. Parsing is strict and bounded: anything else at that name (other text, a link, a folder, a long file) is
/// not a marker.
package enum StoreMarker {
    /// The marker's file name.
    package static let fileName = ".strata-store"

    /// The layout version this build writes.
    package static let currentVersion = 1

    /// The longest marker file read; a longer one is not a marker.
    package static let maximumLength = 64

    /// What a marker says.
    package struct Contents: Equatable, Sendable {
        /// The store kind: `file` or `json`.
        package let kind: String
        /// The layout version.
        package let version: Int
    }

    /// What is at the marker's name.
    package enum Reading: Equatable, Sendable {
        /// Nothing.
        case missing
        /// A marker.
        case marker(Contents)
        /// Something that is not a marker, and why.
        case unrecognised(String)
        /// A file that could not be read (out of descriptors, an I/O error): nothing is known of it.
        case unreadable(POSIXCallError)
    }

    /// The marker line for `contents`, with its newline.
    package static func line(_ contents: Contents) -> String {
        "strata-store \(contents.version) \(contents.kind)\n"
    }

    /// Parses a marker file's bytes; `nil` for anything that is not exactly one marker line.
    ///
    /// Accepts `strata-store <version> <kind>` and an optional final newline; the version is 1 to 4 decimal
    /// digits, the kind 1 to 16 lowercase ASCII letters.
    package static func parse(_ bytes: some Collection<UInt8>) -> Contents? {
        guard bytes.count <= maximumLength else { return nil }
        var text = Array(bytes)
        if text.last == UInt8(ascii: "\n") { text.removeLast() }
        let fields = text.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].elementsEqual("strata-store".utf8) else { return nil }
        let digits = fields[1]
        guard (1...4).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let version = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        let kind = fields[2]
        guard (1...16).contains(kind.count), kind.allSatisfy({ (0x61...0x7A).contains($0) }) else { return nil }
        guard version >= 1 else { return nil }
        return Contents(kind: String(decoding: kind, as: UTF8.self), version: version)
    }

    /// Reads the marker in `folder`, never following a link.
    package static func read(in folder: StoreFolder) -> Reading {
        do {
            guard let bytes = try folder.readFile(fileName, limit: maximumLength) else { return .missing }
            guard let contents = parse(bytes) else { return .unrecognised("\(fileName) is not a Strata marker") }
            return .marker(contents)
        } catch {
            if error.isLink { return .unrecognised("\(fileName) is a symbolic link") }
            if error.isWrongKind { return .unrecognised("\(fileName) is not a regular file") }
            if error.isTooLong { return .unrecognised("\(fileName) is longer than a marker") }
            // Only a regular file that cannot be read now is unreadable: a socket (`ENXIO`, `EOPNOTSUPP`) or a
            // folder is not a marker, and is set aside as any other.
            guard (try? folder.kind(of: fileName)) ?? .file == .file else {
                return .unrecognised("\(fileName) is not a regular file")
            }
            return .unreadable(error)
        }
    }

    /// Makes sure `folder` is marked as a store of `kind`: writes the marker when it is missing (or is not a
    /// marker: a link there is replaced, never followed; an empty file, which holds nothing to lose, is written
    /// again), accepts one of the same kind.
    ///
    /// The marker is flushed, with its folder, whatever the store's durability: it is written once, and one that a
    /// power loss left cut short would be a file Strata did not write, refusing every open.
    ///
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` when the folder is another kind of store, or one
    ///   written by a newer layout version; ``Strata/StrataError/Code/io`` when the marker cannot be read or
    ///   written.
    package static func adopt(_ folder: StoreFolder, kind: String) throws(StrataError) {
        switch read(in: folder) {
        case .marker(let contents) where contents.kind != kind:
            throw StrataError(
                .invalidArgument,
                "\(folder.path) holds a Strata \(contents.kind) store, not a \(kind) store; give each store its own folder"
            )
        case .marker(let contents) where contents.version > currentVersion:
            throw StrataError(
                .invalidArgument,
                "\(folder.path) was written by a newer Strata (layout \(contents.version), this one reads up to "
                    + "\(currentVersion)); open it with that version"
            )
        case .marker:
            return
        case .missing:
            break
        case .unreadable(let error):
            // Not a file someone else wrote: one this process cannot read now, which is said as it is.
            throw error.strataError("Reading the store marker")
        case .unrecognised:
            switch try? folder.kind(of: fileName) {
            case .link?:
                // A link is never followed: it is removed (the link itself) and the marker written in its place.
                _ = try? folder.remove(fileName)
            case .folder?, .other?:
                _ = try? folder.rename(
                    fileName,
                    to: fileName + ".damaged-" + String(UInt32.random(in: .min ... .max), radix: 16)
                )
            case .file? where isEmptyFile(in: folder):
                break  // a marker whose bytes an earlier version did not flush before a power loss
            case .file?, nil:
                throw StrataError(
                    .invalidArgument,
                    "\(folder.path) has a \(fileName) file that Strata did not write; remove it or use another folder"
                )
            }
        }
        do {
            try folder.writeAtomically(
                Array(line(Contents(kind: kind, version: currentVersion)).utf8),
                to: fileName,
                temporaryPrefix: ".strata-tmp-",
                durable: true
            )
        } catch {
            throw error.strataError("Writing the store marker")
        }
    }

    /// Whether the marker's name holds an empty regular file.
    private static func isEmptyFile(in folder: StoreFolder) -> Bool {
        (try? folder.readFile(fileName, limit: maximumLength))?.isEmpty == true
    }
}
