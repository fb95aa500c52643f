import Strata
import StrataTesting
import Testing

/// `fail(_:with:times:)` scripts a count of failures, not one queued outcome per call.
struct ScriptedFailureTests {
    /// Before, a negative count trapped in `repeatElement`, ending the whole test run.
    @Test(arguments: [-1, 0])
    func noCountOfFailuresFailsNoCall(times: Int) async throws {
        let source = ScriptedDataSource(["k": "stored"])

        source.fail(.get, with: StrataError(.network, "down"), times: times)

        #expect(try await source.get(KeyQuery("k")) == "stored")
    }

    @Test func failuresComeInTheirPlaceAmongTheScriptedOutcomes() async throws {
        let source = ScriptedDataSource(["k": "stored"])
        source.script(.get, .value("first"))
        source.fail(.get, with: StrataError(.network, "down"), times: 2)
        source.script(.get, .value("last"))

        #expect(try await source.get(KeyQuery("k")) == "first")
        await #expect(throws: StrataError.self) { try await source.get(KeyQuery("k")) }
        await #expect(throws: StrataError.self) { try await source.get(KeyQuery("k")) }
        #expect(try await source.get(KeyQuery("k")) == "last")
        #expect(try await source.get(KeyQuery("k")) == "stored")
    }

    /// The default fails every call until the scripts are cleared. Before, it queued a million outcomes and each call
    /// copied what was left of them under the lock (about 14 ms a call).
    @Test func theDefaultFailsEveryCallUntilCleared() async throws {
        let source = ScriptedDataSource(["k": "stored"])
        source.fail(.get, with: StrataError(.network, "down"))

        for _ in 0..<1_000 {
            await #expect(throws: StrataError.self) { try await source.get(KeyQuery("k")) }
        }
        source.clearScripts()

        #expect(try await source.get(KeyQuery("k")) == "stored")
    }
}
