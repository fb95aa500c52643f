extension PluginCall {
    /// The validators a conditional read sends: the entity tag and the `Last-Modified` date of the caller's copy.
    ///
    /// Two conditional reads get the same answer only when these are equal.
    struct Validators: Hashable, Sendable {
        /// The entity tag, sent as `If-None-Match`.
        let eTag: String?
        /// The `Last-Modified` date, sent as `If-Modified-Since`.
        let lastModified: String?

        /// The validators of the copy whose metadata is `metadata`.
        init(_ metadata: EntryMetadata) {
            eTag = metadata.eTag
            lastModified = metadata.lastModified
        }
    }
}
