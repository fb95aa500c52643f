#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value guarded by a lock: the one lock every thread-safe Strata type uses.
///
/// Why not `Synchronization.Mutex`: on Linux it parks on raw futex system calls that ThreadSanitizer cannot see,
/// so every access under it is reported as a race and the sanitizer becomes useless; it also requires macOS 15.
/// This lock is a `pthread_mutex_t` (an `os_unfair_lock` on Apple platforms), which ThreadSanitizer understands,
/// at the same uncontended cost.
@usableFromInline
package final class Locked<State: ~Copyable>: @unchecked Sendable {
    // @unchecked Sendable is sound: `state` is only touched inside `withLock`, under `lock`.
    #if canImport(Darwin)
        @usableFromInline let lock: UnsafeMutablePointer<os_unfair_lock>
    #else
        @usableFromInline let lock: UnsafeMutablePointer<pthread_mutex_t>
    #endif
    @exclusivity(unchecked) @usableFromInline var state: State

    /// Creates a lock around an initial state.
    @usableFromInline
    package init(_ initialState: consuming State) {
        state = initialState
        lock = .allocate(capacity: 1)
        #if canImport(Darwin)
            lock.initialize(to: os_unfair_lock())
        #else
            lock.initialize(to: pthread_mutex_t())
            pthread_mutex_init(lock, nil)
        #endif
    }

    deinit {
        #if !canImport(Darwin)
            pthread_mutex_destroy(lock)
        #endif
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        acquire()
        defer { release() }
        return try body(&state)
    }

    /// Runs `body` with exclusive access to the state, as ``withLock(_:)`` does, first calling `waits` when another
    /// thread holds the lock, before waiting for it: a way to count the waits (a test awaits one), at no cost to a
    /// lock that is free.
    ///
    /// - Parameters:
    ///   - waits: Called, without the lock, when the lock is taken.
    ///   - body: What runs under the lock.
    @inlinable
    package func withLock<Result>(
        countingWaits waits: () -> Void,
        _ body: (inout State) throws -> Result
    ) rethrows -> Result {
        if !tryAcquire() {
            waits()
            acquire()
        }
        defer { release() }
        return try body(&state)
    }

    @inlinable
    func tryAcquire() -> Bool {
        #if canImport(Darwin)
            os_unfair_lock_trylock(lock)
        #else
            pthread_mutex_trylock(lock) == 0
        #endif
    }

    @inlinable
    func acquire() {
        #if canImport(Darwin)
            os_unfair_lock_lock(lock)
        #else
            pthread_mutex_lock(lock)
        #endif
    }

    @inlinable
    func release() {
        #if canImport(Darwin)
            os_unfair_lock_unlock(lock)
        #else
            pthread_mutex_unlock(lock)
        #endif
    }
}
