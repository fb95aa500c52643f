import Foundation
import Strata

extension JSONFileDataSource {
    /// Decodes the value of `key` from its entry file's bytes.
    ///
    /// Damage — a checksum line that does not match, bytes that are not JSON, a file of another key — is
    /// moved aside, reported, and gives `nil`. An intact file whose value does not decode as `Value` (the app
    /// changed its type) is not damage: it stays where it is, and the read throws.
    ///
    /// - Throws: ``Strata/StrataError/Code/dataSerialization`` for an intact file of another type.
    func decodeValue(_ data: Data, key: String, storage: inout JSONFileStorage, now: Date) throws -> Value? {
        let (json, isSealed): (Range<Int>, Bool)
        do {
            (json, isSealed) = try EntrySeal.unseal(data)
        } catch {
            try storage.setAsideEntry(
                key,
                now: now,
                reason: "Damaged entry file (\(error.reason)) for key \(StrataError.quoted(key: key))",
                underlying: nil
            )
            return nil
        }
        let decoder = configuration.makeDecoder()
        do {
            let envelope = try decoder.decode(ValueEnvelope<Value>.self, from: data[json])
            if envelope.key == key { return envelope.value }
        } catch {
            // The envelope (key, dates, sequence) reads whatever the value's type: when it does, the file is
            // intact JSON of this key, and only the value's type differs.
            let header: EntryHeader?
            do {
                header = try decoder.decode(EntryHeader.self, from: data[json])
            } catch {
                if isSealed {
                    throw JSONFileStorage.writtenWithOtherCoders("of key \(StrataError.quoted(key: key))", error)
                }
                header = nil
            }
            if let header, header.key == key {
                throw StrataError.serialization(
                    error,
                    "The entry of key \(StrataError.quoted(key: key)) does not decode as \(Value.self) (stored by another "
                        + "version of the app?); its file is left as it is"
                )
            }
            try storage.setAsideEntry(
                key,
                now: now,
                reason: "Damaged entry file for key \(StrataError.quoted(key: key))",
                underlying: StrataError.serialization(error, "Decoding the entry file failed")
            )
            return nil
        }
        try storage.setAsideEntry(
            key,
            now: now,
            reason: "The entry file for key \(StrataError.quoted(key: key)) holds another key",
            underlying: nil
        )
        return nil
    }
}
