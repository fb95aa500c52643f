import Foundation
import Strata
import StrataFile
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file store holds no descriptor once it is gone: after fifty stores opened, written, read, renewed, emptied and
/// dropped in one folder, after inspectors, and after opens and writes that failed. Each store left one open would
/// cost a long-running process a descriptor for good.
struct FileDataSourceDescriptorTests {
    @Test func storesAndInspectorsThatAreGoneHoldNothingOpen() throws {
        let folder = try TemporaryFolder()
        for round in 0..<50 {
            let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "store"))
            for key in ["a", "b", "c"] { try store.setValue(Data("\(key)\(round)".utf8), forKey: key) }
            #expect(store.value(forKey: "b") == Data("b\(round)".utf8))
            // (While a store is open, it holds its folder: what is counted below is what it held.) A program started
            // meanwhile inherits none of it.
            if round == 0 {
                #expect(!openDescriptors(under: folder.url).isEmpty)
                #expect(try descriptorsAChildInherits(under: folder.url) == [])
            }
            #expect(try store.removeValue(forKey: "a"))
            try store.removeAll()
        }
        for access in [StoreAccess.readOnly, .readWrite] {
            let inspector = try FileStoreInspector(folder: folder.storeURL(), access: access)
            _ = inspector.verify()
        }
        #expect(openDescriptors(under: folder.url) == [])
    }

    /// What the check above looks for, shown to be seen: a descriptor of the folder opened without close-on-exec is
    /// inherited by a program started while it is open.
    @Test func aDescriptorWithoutCloseOnExecIsSeenInherited() throws {
        #if os(Linux)
            let folder = try TemporaryFolder()
            let file = folder.url.appendingPathComponent("plain")
            try Data().write(to: file)
            let descriptor = open(file.path, O_RDONLY)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            #expect(try descriptorsAChildInherits(under: folder.url) == [file.resolvingSymlinksInPath().path])
        #endif
    }

    /// An open that fails (a file where the store's folder belongs) and a write that fails (a file where the store's
    /// entries belong, planted after the open) leave nothing open either.
    @Test func failedOpensAndWritesHoldNothingOpen() throws {
        let folder = try TemporaryFolder()
        try Data("not a folder".utf8).write(to: folder.storeURL("file"))
        for _ in 0..<20 {
            #expect(throws: StrataError.self) {
                _ = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "file"))
            }
        }
        do {
            let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "store"))
            try store.setValue(Data("kept".utf8), forKey: "kept")
            let root = folder.storeURL()
            for name in try FileManager.default.contentsOfDirectory(atPath: root.path) {
                let item = root.appendingPathComponent(name)
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: item.path, isDirectory: &isFolder), isFolder.boolValue
                else { continue }
                try FileManager.default.removeItem(at: item)
                try Data("planted".utf8).write(to: item)
            }
            for index in 0..<20 { _ = try? store.setValue(Data("new".utf8), forKey: "new\(index)") }
        }
        #expect(openDescriptors(under: folder.url) == [])
    }
}
