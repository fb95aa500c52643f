import Foundation

/// HTTP header fields with case-insensitive names, in the order they were added.
///
/// Reading a name that occurs several times joins the values with `", "`, as RFC 9110 allows for list
/// fields such as `Cache-Control`.
///
/// In a request, names must be RFC 9110 tokens and values free of control characters other than a tab:
/// ``HTTPRequest/validate()`` checks it before anything is sent, so no header can add a line on the wire.
///
/// ```swift
/// var headers: HTTPHeaders = ["Content-Type": "application/json"]
/// headers["accept"] = "application/json"
/// let type = headers["CONTENT-TYPE"]   // "application/json"
/// ```
public struct HTTPHeaders: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Hashable, Sendable {
        /// The name as it was given.
        public var name: String
        /// The value.
        public var value: String

        /// Creates a field.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - value: The field value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// Creates headers from fields.
    ///
    /// - Parameter fields: The fields, in order.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Creates headers from a dictionary.
    ///
    /// - Parameter dictionary: Values by name.
    public init(_ dictionary: [String: String]) {
        self.fields = dictionary.sorted { $0.key < $1.key }.map { Field(name: $0.key, value: $0.value) }
    }

    /// Creates headers from a dictionary literal.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The value of the field with this name (case-insensitive), several occurrences joined by `", "`;
    /// setting replaces every occurrence, and `nil` removes them.
    ///
    /// - Parameter name: The field name.
    public subscript(name: String) -> String? {
        get {
            let values = self.values(for: name)
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
        set {
            let index = fields.firstIndex { $0.hasName(name) }
            fields.removeAll { $0.hasName(name) }
            guard let newValue else { return }
            fields.insert(Field(name: name, value: newValue), at: Swift.min(index ?? fields.count, fields.count))
        }
    }

    /// Every value of the fields with this name (case-insensitive), in order.
    ///
    /// - Parameter name: The field name.
    public func values(for name: String) -> [String] {
        fields.filter { $0.hasName(name) }.map(\.value)
    }

    /// Adds a field, keeping the fields already there.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - name: The field name.
    public mutating func add(_ value: String, for name: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Sets every field of `other`, replacing fields of the same names.
    ///
    /// - Parameter other: The headers that win.
    ///
    /// In time linear in the number of fields (a server chooses how many).
    public mutating func merge(_ other: HTTPHeaders) {
        let replaced = Set(other.fields.map(\.name.asciiLowercased))
        fields.removeAll { replaced.contains($0.name.asciiLowercased) }
        fields.append(contentsOf: other.fields)
    }

    /// The headers as a dictionary, names as first given and repeated names joined by `", "`.
    ///
    /// In time linear in the number of fields (a server chooses how many): before, each field searched the names
    /// gathered so far.
    public var dictionary: [String: String] {
        var spellings: [String: String] = [:]
        var values: [String: [String]] = [:]
        for field in fields {
            let name = field.name.asciiLowercased
            if spellings[name] == nil { spellings[name] = field.name }
            values[name, default: []].append(field.value)
        }
        var result = [String: String](minimumCapacity: spellings.count)
        for (name, spelling) in spellings { result[spelling] = values[name]?.joined(separator: ", ") }
        return result
    }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

extension HTTPHeaders.Field {
    /// Whether the field's name is `name`, ignoring case.
    func hasName(_ name: String) -> Bool { self.name.equalsIgnoringASCIICase(name) }
}

extension String {
    /// The string with its ASCII letters made lowercase and every other byte as it is: a field name's key, equal for
    /// two names that ``equalsIgnoringASCIICase(_:)`` finds equal.
    var asciiLowercased: String {
        var copy = self
        return copy.withUTF8 { bytes in
            guard bytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return self }
            return String(
                decoding: bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 },
                as: UTF8.self
            )
        }
    }

    /// Whether two field names are equal, ignoring the case of ASCII letters: field names are ASCII tokens
    /// compared case-insensitively (RFC 9110, section 5.1); any other byte must match exactly.
    ///
    /// A byte comparison: Foundation's `caseInsensitiveCompare` bridges to `NSString` and folds Unicode case, which
    /// cost more than the rest of a cached response's header handling.
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        var this = self
        var that = other
        return this.withUTF8 { left in
            that.withUTF8 { right in
                guard left.count == right.count else { return false }
                for index in left.indices where left[index] != right[index] {
                    // `| 0x20` maps A-Z onto a-z; only letters may differ by that bit.
                    let folded = left[index] | 0x20
                    guard folded == right[index] | 0x20, folded >= UInt8(ascii: "a"), folded <= UInt8(ascii: "z") else {
                        return false
                    }
                }
                return true
            }
        }
    }
}
