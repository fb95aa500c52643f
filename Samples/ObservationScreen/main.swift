// A "screen" that watches one user through a repository stream and redraws on every update, while
// another task edits the user. Run it with `swift run ObservationScreen`; it ends on its own.

import Foundation
import Strata
import StrataMemory

/// A user as the server sends it, with the time it was fetched (what the cache's validator checks).
struct User: Sendable, Equatable, CustomStringConvertible {
    var name: String
    var fetchedAt = Date()
    var description: String { name }
}

/// A pretend server: answers after a short delay.
struct UsersAPI: DataSource {
    let store = MemoryDataSource<User>()
    var origin: DataOrigin { .network }

    func get(_ query: any Query) async throws -> User {
        try await Task.sleep(for: .milliseconds(20))
        var user = try await store.get(query)
        user.fetchedAt = Date()
        return user
    }

    func getAll(_ query: any Query) async throws -> [User] { try await store.getAll(query) }

    func put(_ value: User, in query: any Query) async throws -> User {
        try await store.put(value, in: query)
    }

    func putAll(_ values: [User], in query: any Query) async throws -> [User] {
        try await store.putAll(values, in: query)
    }

    func delete(_ query: any Query) async throws { try await store.delete(query) }
}

let api = UsersAPI()
api.store.setValue(User(name: "Ada (from the server)"), forKey: "42")
// The memory cache holds a copy fetched yesterday; the validator accepts copies younger than a minute.
let memory = MemoryDataSource<User>(countLimit: 100)
memory.setValue(User(name: "Ada (cached yesterday)", fetchedAt: Date() - 86_400), forKey: "42")
let users = CacheRepository(main: api, cache: memory.validated(by: .maxAge(.seconds(60), of: \.fetchedAt)))

/// Draws one frame of the screen.
func render(_ response: RepositoryResponse<User>) {
    switch response {
    case .loading(let origin):
        print("[screen] loading from \(origin)…")
    case .value(let user, let origin, _, let isStale, _):
        print("[screen] \(user.name) — from \(origin)\(isStale ? " (stale, refreshing)" : "")")
    case .error(let error, let origin):
        print("[screen] \(error.strataCode.map { "\($0)" } ?? "error") — from \(origin)")
    }
}

// The screen shows every response; it closes after the user is deleted.
let screen = Task {
    for await response in users.stream(KeyQuery("42"), operation: .cacheSync, bufferingNewest: 8) {
        render(response)
        if response.error?.strataCode == .notFound { break }
    }
}

// Meanwhile an editor task changes the user: through the repository, then straight into the memory cache.
let editor = Task {
    try await Task.sleep(for: .milliseconds(60))
    print("[editor] renames the user through the repository")
    try await users.put(User(name: "Ada Lovelace"), in: KeyQuery("42"))
    try await Task.sleep(for: .milliseconds(20))
    print("[editor] writes the memory cache directly")
    memory.setValue(User(name: "Ada L. (edited offline)"), forKey: "42")
    try await Task.sleep(for: .milliseconds(20))
    print("[editor] deletes the user")
    try await users.delete(KeyQuery("42"))
}

try await editor.value
await screen.value
print("[screen] closed")
