import StrataFuzzTargets

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The parser this process feeds: set once, before libFuzzer starts.
nonisolated(unsafe) private var selected = FuzzTarget.httpDate

/// libFuzzer's entry point: one input for the selected target; a broken invariant aborts, which libFuzzer reports
/// as a crash and keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    do {
        try selected.run(UnsafeRawBufferPointer(start: data, count: size))
    } catch {
        print("strata-fuzz \(selected.rawValue): \(error)")
        // Flushed, so the reason reaches the log before the abort (a file's output is buffered).
        fflush(nil)
        abort()
    }
    return 0
}

#if STRATA_FUZZER
    /// libFuzzer's driver, linked in by `-sanitize=fuzzer`.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif

/// `StrataFuzz <target> <arguments>`: built by `scripts/fuzz` with `-sanitize=fuzzer` and `-DSTRATA_FUZZER`, it
/// hands the arguments to libFuzzer; in a normal build it replays the files and folders given, and exits non-zero
/// when an input breaks an invariant.
@main
enum StrataFuzz {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]), target.isBuilt else {
            let names = FuzzTarget.built.map(\.rawValue).joined(separator: " | ")
            print("usage: StrataFuzz <\(names)> [libFuzzer options] <corpus folders or input files>")
            if let target = FuzzTarget(rawValue: arguments.count >= 2 ? arguments[1] : ""), !target.isBuilt {
                print("\(target.rawValue) is not in this build: build with --traits Postgres")
            }
            exit(2)
        }
        selected = target
        #if STRATA_FUZZER
            // libFuzzer reads the arguments after the target's name.
            var argc = CommandLine.argc - 1
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv + 1
            argv?[0] = CommandLine.unsafeArgv[0]
            exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
        #else
            do {
                let files = try FuzzTarget.inputs(at: arguments.dropFirst(2).filter { !$0.hasPrefix("-") })
                let failures = try target.replay(files)
                for (file, failure) in failures { print("\(file.path): \(failure)") }
                print("\(target.rawValue): \(files.count) inputs, \(failures.count) failing")
                exit(failures.isEmpty ? 0 : 1)
            } catch {
                print("strata-fuzz: \(error)")
                exit(1)
            }
        #endif
    }
}
