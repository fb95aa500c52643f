/// The validators of one stored version of an entry, as a conditional read sent them: its entity tag and its
/// `Last-Modified` date, each as the store reported it.
package struct ConfirmedVersion: Sendable, Hashable {
    /// The entity tag the stored entry carried; `nil` when it carried none.
    package let eTag: String?
    /// The `Last-Modified` date the stored entry carried; `nil` when it carried none.
    package let lastModified: String?
}

extension EntryMetadata {
    /// Whether a renewal with this metadata renews a stored entry that carries the validators `eTag` and
    /// `lastModified` (`nil` where it carries none): always, unless the renewal is a conditional read's *not modified*,
    /// which renews only the version it confirmed — an entry that still carries exactly the validators the request was
    /// sent with.
    ///
    /// The rule of every renewal in Strata's stores (memory, file, JSON file, and the caches of StrataCache), checked
    /// in the same hold of the store's lock as the renewal's write, so a version stored after the conditional request
    /// left (another read's full answer) is never renewed with the older version's validators and lifetime. Such an
    /// entry is left as it is, and ``PutDataSource/renewMetadata(_:in:)`` still answers `true`: the caller writes
    /// nothing in its place. A store that keeps no validators passes `nil` for both.
    ///
    /// - Parameters:
    ///   - eTag: The stored entry's entity tag.
    ///   - lastModified: The stored entry's `Last-Modified` date.
    /// - Returns: `false` when the renewal confirmed another version than the stored one.
    public func renews(entryWithETag eTag: String?, lastModified: String?) -> Bool {
        guard let confirmedVersion else { return true }
        return confirmedVersion.eTag == eTag && confirmedVersion.lastModified == lastModified
    }

    /// What a store that keeps metadata as it is given stores when this renewal reaches its entry whose metadata is
    /// `stored`: this metadata, without the version it confirmed; `nil` when it confirmed another version than the
    /// stored one (``renews(entryWithETag:lastModified:)``), which is left as it is.
    ///
    /// - Parameter stored: The stored entry's metadata.
    package func renewal(of stored: EntryMetadata) -> EntryMetadata? {
        guard renews(entryWithETag: stored.eTag, lastModified: stored.lastModified) else { return nil }
        var renewal = self
        renewal.confirmedVersion = nil
        return renewal
    }

    /// This metadata as the renewal of the version `sent` names: what a conditional read sent with `sent` renews a
    /// cache's entry with when main answers *not modified* (``renews(entryWithETag:lastModified:)``).
    ///
    /// - Parameter sent: The stored entry's metadata the conditional read was sent with.
    package func confirming(_ sent: EntryMetadata) -> EntryMetadata {
        var renewal = self
        renewal.confirmedVersion = ConfirmedVersion(eTag: sent.eTag, lastModified: sent.lastModified)
        return renewal
    }
}
