#if DEBUG
    import Foundation
    @testable import StrataJSONFile

    extension FuzzTarget {
        /// Parses the input as a JSON store's `session` file: a parsed state's bytes parse back to it, and a boot
        /// identifier holds no space (which would make the line three fields).
        static func storeSession(_ bytes: UnsafeRawBufferPointer) throws(FuzzFailure) {
            guard let state = StoreSession.parse(bytes) else { return }
            try expect(!state.bootID.contains(" "), "a boot identifier with a space: \(state.bootID)", input: bytes)
            try expect(
                StoreSession.parse(StoreSession.bytes(of: state)) == state,
                "the bytes of \(state) do not parse back",
                input: bytes
            )
        }
    }
#endif
