#if DEBUG
    import Foundation
    import StrataStorage

    extension FuzzTarget {
        /// A scratch folder for the marker file, made on first use, reused for every input, and removed when the
        /// process exits.
        private static let scratch: StoreFolder? = {
            atexit { try? FileManager.default.removeItem(atPath: scratchPath) }
            return try? StoreFolder.open(scratchPath, create: true)
        }()

        /// The scratch folder's path: one per process, so that runs side by side do not share it.
        private static var scratchPath: String {
            FileManager.default.temporaryDirectory
                .appendingPathComponent("strata-fuzz-marker-\(ProcessInfo.processInfo.processIdentifier)").path
        }

        /// Parses the input as a marker: a parsed marker survives its own line; and written as a real
        /// `.strata-store` file, `StoreMarker.read` (what the `strata` tool detects a store by) agrees with `parse`.
        static func storeMarker(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            let parsed = StoreMarker.parse(bytes)
            if let parsed {
                try expect(
                    StoreMarker.parse(Array(StoreMarker.line(parsed).utf8)) == parsed,
                    "the marker line of \(parsed) does not parse back",
                    input: bytes
                )
            }
            guard let scratch else { throw FuzzFailure("no scratch folder for the marker", input: bytes) }
            do {
                try scratch.writeAtomically(
                    bytes,
                    to: StoreMarker.fileName,
                    temporaryPrefix: ".fuzz-",
                    durable: false
                )
            } catch {
                throw FuzzFailure("writing the marker: \(error)", input: bytes)
            }
            let read = StoreMarker.read(in: scratch)
            switch (read, parsed) {
            case (.marker(let contents), let parsed?):
                try expect(contents == parsed, "read \(contents), parsed \(parsed)", input: bytes)
            case (.unrecognised, nil):
                break
            default:
                throw FuzzFailure("read gives \(read) where parse gives \(String(describing: parsed))", input: bytes)
            }
        }
    }
#endif
