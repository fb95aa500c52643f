extension Unicode.Scalar {
    /// Whether the scalar acts on a terminal or a log rather than shows: a C0 control, DEL, a C1 control (CSI is one
    /// of them, a whole escape sequence's start in one byte), or a bidirectional mark, override or isolate (which
    /// reorder what follows them on screen). The one rule for text Strata writes out: error messages, log lines, the
    /// `strata` tool's output.
    package var isTerminalControl: Bool {
        switch value {
        case 0x00..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
