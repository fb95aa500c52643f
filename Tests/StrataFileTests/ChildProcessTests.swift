import Foundation
import StrataTestSupport
import Testing

/// The second-process helper the crash, owner and tool tests use in place of Foundation's `Process`.
struct ChildProcessTests {
    /// Runs `script` with `/bin/sh` to its end; returns the process and what it printed.
    private func shell(_ script: String) throws -> (process: ChildProcess, output: String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readToEndAcrossInterrupts(), as: UTF8.self)
        process.waitUntilExit()
        return (process, text)
    }

    @Test func anExitCodeAndTheOutputComeBack() throws {
        let (process, text) = try shell("echo out; exit 3")

        #expect(text == "out\n")
        #expect(process.terminationStatus == 3)
        #expect(!process.isRunning)
    }

    @Test func aTerminatedProcessReportsItsSignalWhileAnotherThreadWaits() async throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["60"]
        try process.run()
        let waiter = Thread { process.waitUntilExit() }
        waiter.start()

        #expect(process.isRunning)
        process.terminate()
        while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }

        #expect(process.terminationStatus == SIGTERM)
    }

    @Test func theChildInheritsNoDescriptorButItsOutputs() throws {
        let (_, listed) = try shell("ls /proc/self/fd")

        // 0, 1 and 2, and the descriptor `ls` opens to list the folder.
        #expect(listed.split(separator: "\n").count <= 4)
    }
}
