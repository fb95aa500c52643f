import Strata

/// Who holds an ``Outbox``: the claims handed out and the one that holds it now.
struct ServiceClaims: Sendable {
    /// The number of the next claim.
    var next: UInt64 = 1
    /// The claim that holds the outbox; `nil` when no repository serves it.
    var holder: UInt64?
}

extension Outbox {
    /// Claims the outbox for one repository; the claim's number, or `nil` while another repository holds it.
    ///
    /// Two repositories replaying one outbox would send its records twice, each from its own timer, and number
    /// their cache writes in turns the other never sees.
    nonisolated func claimService() -> UInt64? {
        service.withLock { claims in
            guard claims.holder == nil else { return nil }
            defer { claims.next &+= 1 }
            claims.holder = claims.next
            return claims.next
        }
    }

    /// Gives the claim numbered `claim` back; nothing when it no longer holds the outbox.
    nonisolated func releaseService(_ claim: UInt64) {
        service.withLock { claims in
            if claims.holder == claim { claims.holder = nil }
        }
    }

    /// Throws ``notServed`` unless the claim numbered `claim` holds the outbox: the repository that asks could not
    /// claim it, or gave it back (``OfflineRepository/close()``).
    nonisolated func checkService(_ claim: UInt64?) throws {
        guard let claim, service.withLock({ $0.holder == claim }) else { throw notServed }
    }

    /// The ``Strata/StrataError/Code/alreadyInUse`` error of a write through a repository that does not hold the
    /// outbox (any more).
    nonisolated var notServed: StrataError {
        StrataError(
            .alreadyInUse,
            "This OfflineRepository does not hold the outbox in \(folder.path): another repository serves it, "
                + "or this one was closed; give each repository its own outbox, or close() the other one first"
        )
    }
}
