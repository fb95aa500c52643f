import Strata

/// Passes main's answers to the offline repository that owns it: the repository's handler is made before the
/// repository exists, so it calls the relay, which is connected once the repository is.
final class MainAnswerRelay: Sendable {
    /// What a main answer does; `nil` until connected.
    private let action = Locked<(@Sendable () -> Void)?>(nil)

    /// Sets what a main answer does.
    func connect(_ action: @escaping @Sendable () -> Void) {
        self.action.withLock { $0 = action }
    }

    /// Tells the owner that main answered a call.
    func fire() {
        action.withLock { $0 }?()
    }
}
