import Strata
import StrataTesting

/// A main that never answers, unless the read is cancelled: it sleeps an hour on a manual clock, and then throws, as a
/// network source does.
struct UnansweringMain: GetDataSource {
    let clock: ManualClock

    func get(_ query: any Query) async throws -> String {
        try await clock.sleep(for: .seconds(3_600))
        return "new"
    }

    func getAll(_ query: any Query) async throws -> [String] { [try await get(query)] }
}
