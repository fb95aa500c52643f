extension String {
    /// The string's first `limit` Unicode scalars, for a message, and whether it was cut.
    ///
    /// Counted in scalars, not `Character`s: one `Character` may hold any number of scalars (a letter and a hundred
    /// thousand combining marks), so a cut by `Character`s bounds nothing.
    package func prefixForMessage(_ limit: Int) -> (text: String, isCut: Bool) {
        let scalars = unicodeScalars
        guard let end = scalars.index(scalars.startIndex, offsetBy: limit, limitedBy: scalars.endIndex),
            end != scalars.endIndex
        else { return (self, false) }
        return (String(scalars[..<end]), true)
    }
}
