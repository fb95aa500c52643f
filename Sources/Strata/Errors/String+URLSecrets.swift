extension String {
    /// This text with each URL in it (`scheme://…`, up to a space, a quote or an angle bracket) cut to its scheme,
    /// host, port and path: without the user and password before its host, its query and its fragment, where a
    /// token (`?access_token=…`) or a password travels.
    ///
    /// What a description kept beyond the call (``StrataError/describingWithoutSecrets(_:)``) names a URL by. Text
    /// is cut, not parsed: a URL no parser would take loses the same parts.
    package var withoutURLSecrets: String {
        guard contains("://") else { return self }
        var text = ""
        var rest = self[...]
        while let separator = rest.range(of: "://") {
            text += rest[..<separator.upperBound]
            let url = rest[separator.upperBound...]
            var end = url.firstIndex(where: Self.endsURL) ?? url.endIndex
            // Punctuation that ends a sentence or a clause (`GET https://host/a?token=…: 503`) is the text's.
            while let last = url[..<end].last, ":,.;)]}".contains(last) { end = url.index(before: end) }
            text += Self.withoutSecrets(url[..<end])
            rest = url[end...]
        }
        return text + rest
    }

    /// The part of a URL after its `scheme://` without the user and password of its authority (before the last `@`
    /// ahead of the path), its query and its fragment.
    private static func withoutSecrets(_ url: Substring) -> Substring {
        let resource = url.prefix { $0 != "?" && $0 != "#" }
        let authorityEnd = resource.firstIndex(of: "/") ?? resource.endIndex
        guard let userEnd = resource[..<authorityEnd].lastIndex(of: "@") else { return resource }
        return resource[resource.index(after: userEnd)...]
    }

    /// Whether a character ends a URL in text: white space, a quote or an angle bracket, none of which a URL holds
    /// unencoded.
    private static func endsURL(_ character: Character) -> Bool {
        character.isWhitespace || character == "\"" || character == "'" || character == "<" || character == ">"
            || character == "`"
    }
}
