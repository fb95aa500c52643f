import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The idle timeout and the total deadline, decided on instants given by the test: no waiting.
struct RequestDeadlinesTests {
    static let start = ContinuousClock.now

    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    static let cases: [(lastActivity: Int, now: Int, verdict: RequestDeadlines.Verdict)] = [
        // Nothing yet: look again a quarter of the idle timeout later, or when it would pass.
        (0, 0, .wait(until: at(125))),
        (0, 400, .wait(until: at(500))),
        (0, 499, .wait(until: at(500))),
        (0, 500, .expired(.idle)),
        // A byte moved: the idle timeout restarts from it.
        (400, 600, .wait(until: at(725))),
        (400, 850, .wait(until: at(900))),
        (1_800, 1_900, .wait(until: at(2_000))),
        // Bytes keep moving, but the total deadline does not move.
        (1_999, 2_000, .expired(.total)),
        (3_000, 3_000, .expired(.total)),
    ]

    @Test("Deadlines decide on the instants they are given", arguments: cases)
    func verdicts(lastActivity: Int, now: Int, verdict: RequestDeadlines.Verdict) {
        let deadlines = RequestDeadlines(idle: .milliseconds(500), total: .seconds(2), start: Self.start)
        #expect(deadlines.verdict(lastActivity: Self.at(lastActivity), now: Self.at(now)) == verdict)
    }

    static let stallCases: [(lastActivity: Int, due: Int, ran: Int, counted: Int)] = [
        // On time, or late by less than a stall: nothing changes.
        (0, 100, 100, 0),
        (0, 100, 349, 0),
        // A look 1 s late: the second of the stall is not counted as idle.
        (0, 100, 1_100, 1_000),
        // A byte seen during the stall (its callback ran first): only the stall after it is not counted.
        (600, 100, 1_100, 1_100),
        // Never past the look.
        (1_100, 100, 1_100, 1_100),
    ]

    /// A look at the deadlines that ran a stall (250 ms or more) after it was due moves the idle timeout's start on
    /// by the stall's part after the last byte: the process stood still, and bytes waited in the socket unseen.
    @Test("A stall of the process is not counted as idle", arguments: stallCases)
    func stallsAreNotIdle(lastActivity: Int, due: Int, ran: Int, counted: Int) {
        let moved = RequestDeadlines.lastActivity(
            Self.at(lastActivity),
            afterLookDueAt: Self.at(due),
            ranAt: Self.at(ran)
        )
        #expect(moved == Self.at(counted))
    }

    /// Any `Duration` is taken: negative as zero, beyond about 31 years as 31 years; no arithmetic traps.
    @Test func absurdDurationsAreClamped() {
        let negative = RequestDeadlines(idle: .seconds(-5), total: .seconds(-5), start: Self.start)
        #expect(negative.verdict(lastActivity: Self.start, now: Self.start) == .expired(.total))
        let huge = RequestDeadlines(idle: .seconds(Int64.max), total: .seconds(Int64.max) * 10, start: Self.start)
        #expect(huge.idle == RequestDeadlines.longest && huge.total == RequestDeadlines.longest)
        // The next look: a quarter of the idle timeout later.
        #expect(huge.verdict(lastActivity: Self.start, now: Self.start) == .wait(until: Self.start + huge.idle / 4))
    }

    /// URLSession's own timeout is a backstop a minute past Strata's, in whole seconds, never huge.
    @Test func urlSessionTimeoutIsABackstop() throws {
        let url = try #require(URL(string: "http://127.0.0.1/"))
        let subSecond = HTTPRequest(.get, baseURL: url, timeout: .milliseconds(500), totalTimeout: .milliseconds(500))
        #expect(try subSecond.urlRequest().timeoutInterval == 61)
        let long = HTTPRequest(.get, baseURL: url, timeout: .seconds(10), totalTimeout: .seconds(600))
        #expect(try long.urlRequest().timeoutInterval == 660)
        let absurd = HTTPRequest(.get, baseURL: url, timeout: .seconds(Int64.max))
        #expect(try absurd.urlRequest().timeoutInterval == RequestDeadlines.longestBackstop)
        // A request without deadlines of its own has the defaults Strata enforces (60 s idle, 600 s total): its
        // backstop is a minute past those, not past zero (which fired a minute in, before Strata's total deadline).
        let unset = HTTPRequest(.get, baseURL: url)
        #expect(try unset.urlRequest().timeoutInterval == 660)
    }

    /// The messages name the deadline that fired.
    @Test func errorsNameTheirDeadline() {
        let deadlines = RequestDeadlines(idle: .milliseconds(250), total: .seconds(2))
        let idle = deadlines.error(.idle, request: "GET http://127.0.0.1/")
        let total = deadlines.error(.total, request: "GET http://127.0.0.1/")
        #expect(idle.code == .network && idle.isRetryable)
        #expect(idle.message == "GET http://127.0.0.1/ timed out: no data moved for 250 ms (the idle timeout)")
        #expect(total.message.hasSuffix("did not finish within 2 s (the total deadline)"))
        #expect((total.underlying as? URLError)?.code == .timedOut)
    }

    /// The request asked again after a 304 about another version has what the first one left of the total deadline,
    /// and fails at once with the total deadline's error when nothing is left.
    @Test func aRequestAskedAgainHasWhatRemainsOfTheTotalDeadline() throws {
        let deadlines = RequestDeadlines(idle: .seconds(10), total: .seconds(2), start: Self.start)
        var request = HTTPRequest(url: try #require(URL(string: "http://127.0.0.1/file")))
        request.headers["If-None-Match"] = "\"v1\""

        let again = try request.askedAgain(within: deadlines, now: Self.at(500))
        #expect(again.totalTimeout == .milliseconds(1_500))
        #expect(again.headers["If-None-Match"] == nil)
        for late in [2_000, 2_500] {
            #expect {
                _ = try request.askedAgain(within: deadlines, now: Self.at(late))
            } throws: { error in
                guard let error = error as? StrataError else { return false }
                return error.code == .network
                    && error.message.hasSuffix("did not finish within 2 s (the total deadline)")
            }
        }
    }
}

/// Deadlines against real servers on 127.0.0.1 that answer late, trickle or stall.
struct DeadlineTests {
    /// The client fills in its defaults (60 s idle, 10 min total) where a request sets none.
    @Test func theClientFillsInItsDefaults() async throws {
        let transport = TestTransport(.ok)
        let url = try #require(URL(string: "http://127.0.0.1/"))
        _ = try await HTTPClient(transport: transport).send(HTTPRequest(url: url))
        let custom = HTTPClient(
            transport: transport,
            configuration: .init(timeout: .seconds(3), totalTimeout: .seconds(9))
        )
        _ = try await custom.send(HTTPRequest(url: url))
        _ = try await custom.send(HTTPRequest(.get, baseURL: url, timeout: .seconds(1), totalTimeout: .seconds(2)))

        let sent = transport.requests.map { [$0.timeout, $0.totalTimeout] }
        #expect(sent == [[.seconds(60), .seconds(600)], [.seconds(3), .seconds(9)], [.seconds(1), .seconds(2)]])
    }

    /// A 900 ms idle timeout is 900 ms: a server that answers in 20 ms succeeds (FoundationNetworking alone
    /// truncated it to 0 s and failed at once). The total deadline is long: a loaded machine, or one running the tests
    /// under a sanitizer, may stall for a while, and a stall counts towards the total deadline. A machine that stood
    /// still for the whole idle timeout times the request out after it, never before: that attempt is tried again, up
    /// to three in all.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aSubSecondTimeoutLetsAFastAnswerThrough(transport kind: TransportUnderTest) async throws {
        let server = try RawServer.start { write in
            usleep(20_000)
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8))
        }
        defer { server.stop() }

        let request = HTTPRequest(
            .get,
            baseURL: server.baseURL,
            timeout: .milliseconds(900),
            totalTimeout: .seconds(30)
        )
        for _ in 0..<3 {
            let start = ContinuousClock.now
            do {
                let response = try await makeClient(kind.make()).send(request)
                #expect(response.body == Data("ok".utf8))
                return
            } catch let error as StrataError where (error.underlying as? URLError)?.code == .timedOut {
                // A timeout cut short fails at once; one that ran its 900 ms may try again.
                let elapsed = ContinuousClock.now - start
                try #require(elapsed >= .milliseconds(900), "timed out after \(elapsed): \(error)")
            }
        }
        Issue.record("three attempts each ran out their 900 ms idle timeout")
    }

    /// A body trickling one byte every 100 ms keeps the idle timeout (3 s, wide for a loaded machine) from firing, but
    /// not the total deadline: 6 s after the start the request fails (FoundationNetworking alone ran for 40 s).
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aTricklingBodyHitsTheTotalDeadline(transport kind: TransportUnderTest) async throws {
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 400\r\nConnection: close\r\n\r\n".utf8))
            for _ in 0..<400 {
                try write(Data("x".utf8))
                usleep(100_000)
            }
        }
        defer { server.stop() }
        let request = HTTPRequest(.get, baseURL: server.baseURL, timeout: .seconds(3), totalTimeout: .seconds(6))

        let start = ContinuousClock.now
        let error = await strataError { _ = try await makeClient(kind.make()).send(request) }
        let elapsed = ContinuousClock.now - start

        #expect(error?.code == .network)
        #expect(error?.isRetryable == true)
        #expect((error?.underlying as? URLError)?.code == .timedOut)
        #expect(error?.message.contains("(the total deadline)") == true, "\(String(describing: error))")
        // It cannot fire before the deadline. The upper bound only checks that it fired before the trickle would
        // have ended (40 s), with room for a loaded machine, whose waits for a free thread are part of `elapsed`.
        #expect(elapsed >= .seconds(6))
        #expect(elapsed < .seconds(30))
    }

    /// The same trickle with a generous total deadline finishes: each byte restarts the idle timeout (3 s, half the
    /// trickle's 6 s, and 30 times the gap between two bytes).
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aTricklingBodyWithinTheIdleTimeoutFinishes(transport kind: TransportUnderTest) async throws {
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 60\r\nConnection: close\r\n\r\n".utf8))
            for _ in 0..<60 {
                usleep(100_000)
                try write(Data("x".utf8))
            }
        }
        defer { server.stop() }
        let request = HTTPRequest(
            .get,
            baseURL: server.baseURL,
            timeout: .seconds(3),
            totalTimeout: .seconds(30)
        )

        let response = try await makeClient(kind.make()).send(request)

        #expect(response.body == Data(repeating: UInt8(ascii: "x"), count: 60))
    }

    /// A server whose first connection answers a redirect to `/moved`, and every later one `ok`, each once
    /// `hold` returns for the connection's number (1 for the first).
    fileprivate static func redirectingServer(holding hold: @escaping @Sendable (Int) -> Void) throws -> RawServer {
        let connections = Locked(0)
        return try RawServer.start { write in
            let number = connections.withLock { count in
                count += 1
                return count
            }
            hold(number)
            if number == 1 {
                try write(
                    Data(
                        "HTTP/1.1 302 Found\r\nLocation: /moved\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8
                    )
                )
            } else {
                try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8))
            }
        }
    }

    /// A request sent through a transport to ``redirectingServer(holding:)``, whose two answers (the redirect, then the
    /// body) each wait for the test: the hops take their time on the transport's deadline clock, moved on while the
    /// server holds each answer — no wait, and no window a loaded machine could miss.
    private struct HeldRedirect {
        let hops = [ThreadLatch(), ThreadLatch()]
        let server: RawServer
        let transport: any MeasuredTransport
        let sending: Task<HTTPResponse, any Error>

        /// Starts the server and sends it a `GET` with these deadlines through a new transport of `kind`.
        init(_ kind: TransportUnderTest, timeout: Duration, totalTimeout: Duration) throws {
            let hops = self.hops
            server = try DeadlineTests.redirectingServer { number in hops[min(number, hops.count) - 1].wait() }
            let transport = kind.make()
            let request = HTTPRequest(.get, baseURL: server.baseURL, timeout: timeout, totalTimeout: totalTimeout)
            self.transport = transport
            sending = Task { try await transport.send(request, maximumBodySize: 1024) }
        }

        /// Once the hop numbered `index` (from 0) has reached the server, moves the deadline clock on by `duration`
        /// while the server holds its answer; lets it answer when `answers`.
        func hold(_ index: Int, for duration: Duration, answering answers: Bool = true) async {
            await poll(until: { server.connectionCount == index + 1 })
            transport.advanceDeadlineClock(by: duration)
            if answers { hops[index].open() }
        }

        /// Lets every hop answer, and stops the server.
        func stop() {
            for hop in hops { hop.open() }
            server.stop()
        }
    }

    /// A redirect's answer is data that moved: a request whose every hop answers within the idle timeout succeeds,
    /// however long the hops take together. (The AsyncHTTPClient transport follows redirects as requests of its own,
    /// and counted the idle timeout from the first one's start.)
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aRedirectRestartsTheIdleTimeout(transport kind: TransportUnderTest) async throws {
        // Given a request with an idle timeout of 60 s to a server that redirects it
        let redirect = try HeldRedirect(kind, timeout: .seconds(60), totalTimeout: .seconds(600))
        defer { redirect.stop() }

        // When each hop answers 45 s after it was asked (together 90 s, more than the idle timeout)
        await redirect.hold(0, for: .seconds(45))
        await redirect.hold(1, for: .seconds(45))
        let response = try await redirect.sending.value

        // Then it gets the body
        #expect(response.status == 200)
        #expect(response.body == Data("ok".utf8))
        #expect(redirect.server.connectionCount == 2)
    }

    /// The total deadline spans every redirect: two hops that each answer well within the idle timeout fail the
    /// request once together they take longer than its total deadline. The AsyncHTTPClient transport follows
    /// redirects as requests of its own, each with the first one's total deadline; FoundationNetworking follows them
    /// inside one task, whose deadline is the transport's watchdog's.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func theTotalDeadlineSpansARedirect(transport kind: TransportUnderTest) async throws {
        // Given a request with an idle timeout of 60 s and a total deadline of 100 s to a server that redirects it
        let redirect = try HeldRedirect(kind, timeout: .seconds(60), totalTimeout: .seconds(100))
        defer { redirect.stop() }

        // When its first hop answers after 45 s and its second is still silent after 56 s (each within the idle
        // timeout, together past the total deadline)
        await redirect.hold(0, for: .seconds(45))
        await redirect.hold(1, for: .seconds(56), answering: false)
        let error = await strataError { _ = try await redirect.sending.value }

        // Then it fails at its total deadline, on the second hop
        #expect(error?.code == .network, "\(String(describing: error))")
        #expect(error?.message.hasSuffix("(the total deadline)") == true, "\(String(describing: error))")
        #expect(redirect.server.connectionCount == 2)
    }

    /// A server that stalls mid-body fails the request once nothing has moved for the idle timeout, with
    /// the idle timeout named; a download also leaves no partial file.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, [false, true])
    func aStallMidBodyHitsTheIdleTimeout(transport kind: TransportUnderTest, download: Bool) async throws {
        let never = ThreadLatch()
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n".utf8))
            try write(pattern(count: 1_000))
            never.wait()
        }
        defer {
            never.open()
            server.stop()
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)
        let request = HTTPRequest(
            .get,
            baseURL: server.baseURL,
            timeout: .milliseconds(300),
            totalTimeout: .seconds(30)
        )

        let start = ContinuousClock.now
        let error = await strataError {
            if download { _ = try await client.download(request) } else { _ = try await client.send(request) }
        }
        let elapsed = ContinuousClock.now - start

        #expect(error?.code == .network)
        #expect((error?.underlying as? URLError)?.code == .timedOut)
        #expect(
            error?.message.contains("no data moved for 300 ms (the idle timeout)") == true,
            "\(String(describing: error))"
        )
        // The server never ends the body: any bound proves the timeout fired; this one leaves room for a loaded
        // machine.
        #expect(elapsed >= .milliseconds(300))
        #expect(elapsed < .seconds(30))
        #expect(try folder.contents().isEmpty)
    }

    /// A timeout of any size is taken as given: a huge one neither traps nor stops a quick answer.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aHugeTimeoutIsHarmless(transport kind: TransportUnderTest) async throws {
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8))
        }
        defer { server.stop() }
        let request = HTTPRequest(
            .get,
            baseURL: server.baseURL,
            timeout: .seconds(Int64.max),
            totalTimeout: .seconds(Int64.max)
        )

        #expect(try await makeClient(kind.make()).send(request).body == Data("ok".utf8))
    }
}
