import Foundation

/// How deep `JSONEncoder` nests, and the one place the contexts that store JSON encode through,
/// so that a value nested deeper than it writes is refused with a ``NestingLimitError`` naming
/// where, instead of `JSONEncoder`'s "Unable to encode the given top-level value to JSON" naming
/// an internal wrapper type.
package enum JSONNesting {
    /// The most levels of objects and arrays Foundation's `JSONEncoder` writes: a value whose
    /// containers nest one level deeper makes it throw (and `JSONDecoder` reads what it writes).
    package static let maximumDepth = 511

    /// `encoder.encode(value)`. When it throws and `entity` (what `value` wraps, `enclosingLevels`
    /// deep) has a container deeper than the limit, the error is a ``NestingLimitError`` whose
    /// path starts with `prefix` (the keys to `entity` in the stored record); otherwise the
    /// encoder's own error. The probe runs only on failure, so encoding costs nothing extra.
    package static func encode<Value: Encodable, Entity: Encodable>(
        _ value: Value, with encoder: JSONEncoder, entity: Entity, enclosingLevels: Int = 0,
        prefix: [any CodingKey] = []
    ) throws -> Data {
        do {
            return try encoder.encode(value)
        } catch let error as EncodingError {
            let limit = maximumDepth - enclosingLevels
            guard let keys = deepestAllowedPath(of: entity, limit: limit) else { throw error }
            let path = prefix + keys
            throw NestingLimitError(path: abbreviated(path), depth: path.count, limit: maximumDepth)
        }
    }

    /// The keys to the first container of `value` nested deeper than `limit` levels, or `nil`
    /// when every container fits. Walks at most `limit + 1` levels.
    static func deepestAllowedPath<Value: Encodable>(of value: Value, limit: Int) -> [any CodingKey]? {
        let probe = NestingProbe(limit: limit)
        do {
            try value.encode(to: NestingProbeEncoder(probe: probe, codingPath: [], depth: 0))
        } catch {
            // Thrown to stop the walk once a path is found, or by the value itself, which the
            // encoder reported already.
        }
        return probe.found
    }

    /// `path` rendered, its middle left out when it has more than eight keys.
    static func abbreviated(_ path: [any CodingKey]) -> String {
        guard path.count > 8 else { return MappingPath.render(path) }
        return MappingPath.render(Array(path.prefix(3))) + " … " + MappingPath.render(Array(path.suffix(3)))
    }
}

/// What a ``NestingProbeEncoder`` walk shares: the limit and the first path beyond it.
private final class NestingProbe {
    let limit: Int
    var found: [any CodingKey]?

    init(limit: Int) { self.limit = limit }

    /// Records `path` when a container `depth` levels deep does not fit.
    func open(depth: Int, at path: [any CodingKey]) {
        if depth > limit && found == nil { found = path }
    }

    /// Stops the walk once a path is found: every level below throws it.
    func check() throws {
        if found != nil { throw Stop() }
    }

    /// Ends a walk early.
    struct Stop: Error {}
}

/// An `Encoder` that writes nothing and only counts how deep containers nest, as `JSONEncoder`
/// would write them: primitives, and `Date`, `Data`, `URL` and `Decimal`, which `JSONEncoder`
/// writes as one number or string, are leaves.
private struct NestingProbeEncoder: Encoder {
    let probe: NestingProbe
    let codingPath: [any CodingKey]
    /// How many containers enclose the value being encoded.
    let depth: Int
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        probe.open(depth: depth + 1, at: codingPath)
        return KeyedEncodingContainer(NestingProbeKeyed<Key>(probe: probe, codingPath: codingPath, depth: depth + 1))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        probe.open(depth: depth + 1, at: codingPath)
        return NestingProbeUnkeyed(probe: probe, codingPath: codingPath, depth: depth + 1)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        NestingProbeSingle(probe: probe, codingPath: codingPath, depth: depth)
    }

    /// Encodes `value` found at `path` inside a container `depth` levels deep.
    static func walk<T: Encodable>(_ value: T, probe: NestingProbe, path: [any CodingKey], depth: Int) throws {
        try probe.check()
        // Leaves: primitives (whose own `encode(to:)` would come back here through a
        // single-value container), and the types `JSONEncoder` writes as one number or string.
        if value is any BinaryInteger || value is any BinaryFloatingPoint || value is Bool || value is String
            || value is Date || value is Data || value is URL || value is Decimal
        {
            return
        }
        try value.encode(to: NestingProbeEncoder(probe: probe, codingPath: path, depth: depth))
        try probe.check()
    }
}

private struct NestingProbeKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let probe: NestingProbe
    let codingPath: [any CodingKey]
    let depth: Int

    mutating func encodeNil(forKey key: Key) throws { try probe.check() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try NestingProbeEncoder.walk(value, probe: probe, path: codingPath + [key], depth: depth)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        NestingProbeEncoder(probe: probe, codingPath: codingPath + [key], depth: depth).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NestingProbeEncoder(probe: probe, codingPath: codingPath + [key], depth: depth).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        NestingProbeEncoder(probe: probe, codingPath: codingPath + [MappingKey.super], depth: depth)
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NestingProbeEncoder(probe: probe, codingPath: codingPath + [key], depth: depth)
    }
}

private struct NestingProbeUnkeyed: UnkeyedEncodingContainer {
    let probe: NestingProbe
    let codingPath: [any CodingKey]
    let depth: Int
    var count = 0

    init(probe: NestingProbe, codingPath: [any CodingKey], depth: Int) {
        self.probe = probe
        self.codingPath = codingPath
        self.depth = depth
    }

    /// The key of the next element, counting it.
    private mutating func nextKey() -> any CodingKey {
        defer { count += 1 }
        return MappingKey.index(count)
    }

    mutating func encodeNil() throws {
        try probe.check()
        count += 1
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try NestingProbeEncoder.walk(value, probe: probe, path: codingPath + [nextKey()], depth: depth)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        NestingProbeEncoder(probe: probe, codingPath: codingPath + [nextKey()], depth: depth).container(
            keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NestingProbeEncoder(probe: probe, codingPath: codingPath + [nextKey()], depth: depth).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        NestingProbeEncoder(probe: probe, codingPath: codingPath + [nextKey()], depth: depth)
    }
}

private struct NestingProbeSingle: SingleValueEncodingContainer {
    let probe: NestingProbe
    let codingPath: [any CodingKey]
    let depth: Int

    mutating func encodeNil() throws { try probe.check() }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try NestingProbeEncoder.walk(value, probe: probe, path: codingPath, depth: depth)
    }
}
