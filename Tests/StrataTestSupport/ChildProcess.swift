import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program run by the tests as a second process, with `posix_spawn` and `waitpid`: the part of Foundation's
/// `Process` the tests use, under the same names.
///
/// Not `Process` itself: on Linux its `run()` lists `/proc/self/fd` with a copy of every directory entry's whole
/// 256-byte name field, which reads past the end of the directory buffer when an entry ends a page and the next one
/// is not mapped, and the test process dies of it now and then (swift-corelibs-foundation pull request 5472, fixed
/// after Swift 6.3.1). Here the child closes every descriptor above its standard three itself.
///
/// `@unchecked Sendable`: it is configured and run by one thread; its end is recorded under a lock, so waiting,
/// `isRunning` and `terminationStatus` may be called from any thread.
public final class ChildProcess: @unchecked Sendable {
    /// The program.
    public var executableURL: URL?

    /// Its arguments, without the program's own path.
    public var arguments: [String]?

    /// Its environment; this process's environment when `nil`.
    public var environment: [String: String]?

    /// Where its standard output goes: a `Pipe`, a `FileHandle`, or `nil` for this process's own.
    public var standardOutput: Any?

    /// Where its standard error goes: a `Pipe`, a `FileHandle`, or `nil` for this process's own.
    public var standardError: Any?

    /// Whether the program inherits every descriptor of this process that is not close-on-exec, as a program that an
    /// app starts with `posix_spawn` or `fork` and `exec` does; by default it gets only its standard three.
    public var inheritsDescriptors = false

    /// Called once, on a thread of its own, when the process ended; set before ``run()``.
    public var terminationHandler: (@Sendable (ChildProcess) -> Void)?

    /// The process's identifier once it runs; `0` before.
    public private(set) var processIdentifier: pid_t = 0

    private let ending = NSLock()
    private var status: Int32?

    /// Creates a process to configure and ``run()``.
    public init() {}

    /// Starts the program.
    ///
    /// - Throws: ``ChildProcessError`` when it cannot be started.
    public func run() throws {
        guard let executableURL else { throw ChildProcessError("no executable") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let outputs = [(standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO)]
        for (target, descriptor) in outputs {
            guard let source = Self.writingDescriptor(of: target) else { continue }
            posix_spawn_file_actions_adddup2(&actions, source, descriptor)
        }
        if !inheritsDescriptors { try Self.closeInheritedDescriptors(&actions) }
        // The child starts with no signal blocked and every signal's default action, whatever this thread's are.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let path = executableURL.path
        let argv = ([path] + (arguments ?? [])).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { variables?.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned =
            variables.map { posix_spawn(&pid, path, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw ChildProcessError("cannot start \(path): error \(spawned)") }
        processIdentifier = pid
        // The child holds the pipes' writing ends now: this process's copies would keep a reader from seeing the end.
        for (target, _) in outputs { try? (target as? Pipe)?.fileHandleForWriting.close() }
        if let terminationHandler {
            Thread { [self] in
                waitUntilExit()
                terminationHandler(self)
            }
            .start()
        }
    }

    /// Waits until the process ended.
    ///
    /// The wait itself holds no lock, so ``isRunning`` and ``terminate()`` stay usable from other threads meanwhile.
    public func waitUntilExit() {
        guard processIdentifier != 0 else { return }
        var raw: Int32 = 0
        var waited = waitpid(processIdentifier, &raw, 0)
        while waited == -1 && errno == EINTR { waited = waitpid(processIdentifier, &raw, 0) }
        ending.lock()
        defer { ending.unlock() }
        // When `isRunning` reaped it on another thread first, it recorded the status under this lock; a process
        // that cannot be waited for at all is recorded as ended with -1.
        record(waited == processIdentifier ? raw : -1)
    }

    /// Whether the process started and has not ended.
    public var isRunning: Bool {
        ending.lock()
        defer { ending.unlock() }
        guard processIdentifier != 0, status == nil else { return false }
        var raw: Int32 = 0
        guard waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier else { return true }
        record(raw)
        return false
    }

    /// Records how the process ended, unless a first report did; called under the lock.
    private func record(_ raw: Int32) {
        if status == nil { status = raw }
    }

    /// The exit code of a process that exited, or the number of the signal that ended it (as `Process` gives it);
    /// `-1` before it ended.
    public var terminationStatus: Int32 {
        ending.lock()
        defer { ending.unlock() }
        guard let status else { return -1 }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    /// Asks the process to end with `SIGTERM`.
    public func terminate() {
        guard processIdentifier != 0 else { return }
        kill(processIdentifier, SIGTERM)
    }

    /// The descriptor the child's output should be a copy of, if `target` names one.
    private static func writingDescriptor(of target: Any?) -> Int32? {
        switch target {
        case let pipe as Pipe: pipe.fileHandleForWriting.fileDescriptor
        case let handle as FileHandle: handle.fileDescriptor
        default: nil
        }
    }

    /// Makes the child close every descriptor above its standard three after the copies above.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
        #if canImport(Glibc)
            // glibc 2.34 and later; not in the headers Swift imports, so looked up by name.
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { throw ChildProcessError("posix_spawn_file_actions_addclosefrom_np is missing (glibc < 2.34)") }
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            let added = closeFrom(&actions, 3)
            guard added == 0 else { throw ChildProcessError("cannot close inherited descriptors: error \(added)") }
        #endif
    }
}

/// Why a ``ChildProcess`` could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What failed.
    public let description: String

    init(_ description: String) { self.description = description }
}
