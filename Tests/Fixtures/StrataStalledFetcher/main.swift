// A child process for the network tests: fetches a URL through a transport, and prints `OK <bytes>` or
// `ERROR <message>`. Its test stops the whole process (SIGSTOP) in the middle of the body, for longer than the idle
// timeout, while the server goes on sending, then lets it go on (SIGCONT).
//
// Usage: StrataStalledFetcher <URL> <idle timeout, ms> <total deadline, ms> <transport> [download]
// where the transport is URLSessionTransport, or AsyncHTTPClientTransport with the `AsyncHTTPClient` trait; with
// `download`, the body is downloaded to a file (written chunk by chunk as it comes), and `OK` prints the file's size.
import Foundation
import Strata
import StrataNetwork

#if AsyncHTTPClient
    import StrataAsyncHTTPClient
#endif

/// Writes one line to standard output at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The transport named `name`, or `nil`.
func transport(named name: String) -> (any HTTPTransport)? {
    switch name {
    case "URLSessionTransport": return URLSessionTransport()
    #if AsyncHTTPClient
        case "AsyncHTTPClientTransport": return AsyncHTTPClientTransport()
    #endif
    default: return nil
    }
}

let arguments = CommandLine.arguments
guard (5...6).contains(arguments.count), let url = URL(string: arguments[1]), let idle = Int(arguments[2]),
    let total = Int(arguments[3]), let transport = transport(named: arguments[4]),
    arguments.count == 5 || arguments[5] == "download"
else {
    FileHandle.standardError.write(
        Data("usage: StrataStalledFetcher <URL> <idle ms> <total ms> <transport> [download]\n".utf8)
    )
    exit(2)
}
let request = HTTPRequest(.get, baseURL: url, timeout: .milliseconds(idle), totalTimeout: .milliseconds(total))
do {
    if arguments.count == 6 {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-stalled-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = HTTPClient.Configuration(downloadDirectory: folder)
        let file = try await HTTPClient(transport: transport, configuration: configuration).download(request)
        say("OK \(try Data(contentsOf: file.fileURL).count)")
    } else {
        let response = try await HTTPClient(transport: transport).send(request)
        say("OK \(response.body.count)")
    }
} catch {
    say("ERROR \(error)")
}
