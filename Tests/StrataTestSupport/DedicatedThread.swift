import Foundation

/// Runs blocking `work` (pipe reads, a wait for a process) on a thread of its own, off the cooperative pool.
package func onDedicatedThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
