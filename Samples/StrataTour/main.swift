// The Strata tour: the five operations of a CacheRepository, step by step, printing which source
// answered each call. Run it with `swift run StrataTour`.

import Foundation
import Strata
import StrataMemory

/// A data source that prints every call it receives, so the tour shows which source was touched.
struct Narrated<Source: DataSource>: DataSource {
    let name: String
    let source: Source

    func get(_ query: any Query) async throws -> Source.Value {
        do {
            let value = try await source.get(query)
            print("    \(name).get(\(describe(query))) -> \(value)")
            return value
        } catch let error as StrataError {
            print("    \(name).get(\(describe(query))) -> \(error.code)")
            throw error
        }
    }

    func getAll(_ query: any Query) async throws -> [Source.Value] {
        let values = try await source.getAll(query)
        print("    \(name).getAll(\(describe(query))) -> \(values)")
        return values
    }

    func put(_ value: Source.Value, in query: any Query) async throws -> Source.Value {
        print("    \(name).put(\(value), in: \(describe(query)))")
        return try await source.put(value, in: query)
    }

    func putAll(_ values: [Source.Value], in query: any Query) async throws -> [Source.Value] {
        print("    \(name).putAll(\(values), in: \(describe(query)))")
        return try await source.putAll(values, in: query)
    }

    func delete(_ query: any Query) async throws {
        print("    \(name).delete(\(describe(query)))")
        try await source.delete(query)
    }

    private func describe(_ query: any Query) -> String {
        (query as? any KeyedQuery).map { "\"\($0.key)\"" } ?? "\(type(of: query))"
    }
}

func step(_ title: String, _ body: @Sendable () async throws -> Void) async {
    print("\n▸ \(title)")
    do {
        try await body()
    } catch let error as StrataError {
        print("    ✗ \(error.code): \(error.message)")
    } catch {
        print("    ✗ \(error)")
    }
}

@main
struct StrataTour {
    static func main() async {
        print("Strata tour — a CacheRepository over a main source (a pretend API) and a memory cache")
        let api = MemoryDataSource<String>()
        let memory = MemoryDataSource<String>(countLimit: 100)
        for (id, name) in [(1, "Ada"), (2, "Grace"), (3, "Edsger")] { api.setValue(name, forKey: "\(id)") }

        let users = CacheRepository(
            main: Narrated(name: "main", source: api),
            cache: Narrated(name: "cache", source: memory)
        )

        await step("GET id 1, .cacheSync on a cold cache: cache misses, main answers, cache is filled") {
            print("    = \(try await users.get(IdQuery(1), operation: .cacheSync))")
        }
        await step("GET id 1, .cacheSync again: the cache answers alone") {
            print("    = \(try await users.get(IdQuery(1), operation: .cacheSync))")
        }
        await step("GET id 2, .cache: cache only, and it has nothing") {
            print("    = \(try await users.get(IdQuery(2), operation: .cache))")
        }
        await step("GET id 2, .main: main only, the cache stays cold") {
            print("    = \(try await users.get(IdQuery(2), operation: .main))")
        }
        await step("GET id 2, .mainSync: main first, then the value is put into the cache (a pull-to-refresh)") {
            print("    = \(try await users.get(IdQuery(2), operation: .mainSync))")
        }
        await step("PUT id 3, .default (= .mainSync): main first, then the cache") {
            print("    = \(try await users.put("Edsger W. Dijkstra", in: IdQuery(3)))")
        }
        await step("PUT id 4, .cacheSync: cache first, then main") {
            print("    = \(try await users.put("Barbara", in: IdQuery(4), operation: .cacheSync))")
        }
        await step("DELETE id 4, .default (= .mainSync): main first, then the cache") {
            try await users.delete(IdQuery(4))
        }
        await step("GET with an operation the repository does not know: a thrown error, never a crash") {
            struct Teleport: RepositoryOperation {}
            _ = try await users.get(IdQuery(1), operation: Teleport())
        }
        print("\nDone: main holds \(api.sortedKeys()), the cache holds \(memory.sortedKeys()).")
    }
}
