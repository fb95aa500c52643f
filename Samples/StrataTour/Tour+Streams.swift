import Foundation
import Strata
import StrataMemory

extension StrataTour {
    /// Part 4: a stream that updates itself when another task writes.
    static func streams() async {
        print("\n━━ 4. Streams — a screen that updates itself as another task writes")
        let api = MemoryDataSource<String>()
        api.setValue("Ada", forKey: "1")
        let users = CacheRepository(main: api, cache: MemoryDataSource<String>(countLimit: 10))
        // The screen tells the writer when it has drawn, so this demo shows every update.
        let (drawn, drawing) = AsyncStream<Void>.makeStream()
        let screen = Task {
            var shown = 0
            for await response in users.stream(IdQuery(1), operation: .cacheSync) {
                guard let value = response.value else { continue }
                print("    screen shows \(value) (from \(response.origin.name))")
                drawing.yield()
                shown += 1
                if shown == 3 { break }
            }
            drawing.finish()
        }
        var frames = drawn.makeAsyncIterator()
        for name in ["Ada Lovelace", "Countess of Lovelace"] {
            _ = await frames.next()
            print("    another task writes \(name)")
            _ = try? await users.put(name, in: IdQuery(1), operation: .mainSync)
        }
        await screen.value
    }
}
