import DAOKitStoreFormat
@_spi(Reflection) import Swift
import Foundation

/// Answers "which stored field does this key path of `Domain` read?" — only when it is proven
/// that the key path reads exactly the value the entity stores under that field: what lets
/// ``BaseDao`` hand a filter or a sort on a key path to the context as one on a field.
///
/// **The rule.** A key path is translated to a field only when all of this holds:
/// 1. `Domain` is a struct and the key path is a chain of its stored properties: the standard
///    library's reflection lists them with their offsets, and `MemoryLayout.offset(of:)` of the
///    key path must land on one of them with the same type (a computed property has no offset, a
///    class lists no fields, so neither is ever translated);
/// 2. the property's type is one a query compares as a value (integers, floating point, `Bool`,
///    `String`, `Date`, `UUID`, `URL`, `Data`, `Decimal`, or an optional of one);
/// 3. on probe entities — a stored entity with the field replaced by a distinct value per probe,
///    and, for an optional, by `nil` — the domain value ``EntityMapper`` produces reads at the key
///    path exactly the value the entity stores under the field (its own `encode(to:)`, the
///    representation queries evaluate), in every probe, and the stored value follows the probe.
///
/// The field's name is the property's name, the key synthesized conformances use. A custom
/// `CodingKeys` that renames or swaps, a coder that transforms the value, or a representation that
/// differs (an entity storing a `Date` as a number) fails (3), and that part of the query is
/// evaluated in Swift instead. A custom coder that changes a value only for inputs the probes do
/// not hit could pass: a `BaseDao` subclass over such a type overrides
/// ``BaseDao/translatesQueries`` to return `false`.
///
/// Probes start from one stored entity (so the fields a probe leaves alone hold valid values);
/// while the store is empty nothing is proven, and nothing needs to be. Results are kept per type
/// pair and key path for the life of the process.
final class FieldProof<Domain: Decodable, Entity: Storable> {
    private let mapper: EntityMapper
    private let sample: () throws -> Entity?
    /// The sample as a JSON object, once fetched; `.none` until then, `.some(nil)` when there is
    /// no usable sample.
    private var base: [String: Any]??

    /// A proof for one query; `sample` is called at most once, when a key path not proven before
    /// needs a probe.
    init(mapper: EntityMapper, sample: @escaping () throws -> Entity?) {
        self.mapper = mapper
        self.sample = sample
    }

    /// The field `keyPath` reads, or `nil` when that cannot be proven.
    func field(for keyPath: AnyKeyPath) -> FieldPath? {
        let cacheKey = CacheKey(domain: ObjectIdentifier(Domain.self), entity: ObjectIdentifier(Entity.self),
                                strict: mapper.isStrict, keyPath: keyPath)
        if let known = FieldProofCache.results.withLock({ $0[cacheKey] }) { return known }
        guard let leaf = StoredLeaf.leaf(of: Domain.self, at: keyPath) else {
            FieldProofCache.results.withLock { $0[cacheKey] = .some(nil) }
            return nil
        }
        guard let object = sampleObject() else { return nil }  // not cached: a later query may have a sample
        let proven = probe(leaf, keyPath: keyPath, base: object) ? FieldPath(leaf.names) : nil
        FieldProofCache.results.withLock { $0[cacheKey] = .some(proven) }
        return proven
    }

    private func sampleObject() -> [String: Any]? {
        if let base { return base }
        var object: [String: Any]?
        if let entity = try? sample(), let data = try? Self.encoder.encode(entity) {
            object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        }
        base = .some(object)
        return object
    }

    /// Runs the probes for one leaf: two with distinct values, and one with `nil` for an optional.
    private func probe(_ leaf: StoredLeaf, keyPath: AnyKeyPath, base: [String: Any]) -> Bool {
        let extractor = FieldExtractor(fields: [FieldPath(leaf.names)])
        var previous: StorageValue?
        for round in 0..<(leaf.isOptional ? 3 : 2) {
            var object = base
            let value = round == 2 ? NSNull() : leaf.kind.probeValue(round: round)
            guard Self.set(value, at: leaf.names, in: &object),
                  let data = try? JSONSerialization.data(withJSONObject: object),
                  let entity = try? Self.decoder.decode(Entity.self, from: data),
                  let domain = try? mapper.map(entity, to: Domain.self),
                  let stored = try? extractor.values(of: entity)[0],
                  let value = domain[keyPath: keyPath], let read = storageValue(of: value),
                  read.kind == stored.kind, StorageValue.equal(read, stored)
            else { return false }
            // The stored value must follow the probe: a field that ignores what it is given proves nothing.
            if let previous, StorageValue.equal(previous, stored) { return false }
            previous = stored
        }
        return true
    }


    /// JSON only builds the probe entities; what is compared is what the entity and the mapper do.
    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }

    /// Sets `value` at the keys `path` in `object`; `false` when a key on the way does not hold
    /// an object.
    private static func set(_ value: Any, at path: [String], in object: inout [String: Any]) -> Bool {
        guard let first = path.first else { return false }
        if path.count == 1 {
            object[first] = value
            return true
        }
        guard var nested = object[first] as? [String: Any], set(value, at: Array(path.dropFirst()), in: &nested) else {
            return false
        }
        object[first] = nested
        return true
    }
}

/// A value read through a key path as a query sees it, if it has a scalar form.
private func storageValue(of value: Any) -> StorageValue? {
    guard let encodable = value as? any Encodable else { return nil }
    return StorageValue(encoding: encodable)
}

private struct CacheKey: Hashable {
    let domain: ObjectIdentifier, entity: ObjectIdentifier, strict: Bool
    let keyPath: AnyKeyPath
}

private enum FieldProofCache {
    /// Proven (or refuted: `.some(nil)`) key paths. Sound as `Sendable`: only touched under the
    /// lock, and the key paths in it are the callers' own stored-property key paths, which never
    /// change (`AnyKeyPath` is not `Sendable` only because a key path can capture subscript
    /// arguments).
    static let results = Locked<[CacheKey: FieldPath?]>([:])
}

/// A stored property chain of a struct whose value a query can compare.
private struct StoredLeaf {
    /// The property names from the root: the coding keys synthesized conformances use.
    let names: [String]
    let kind: ProbeKind
    let isOptional: Bool

    /// The leaf `keyPath` reads, if it is a chain of stored properties of `Root` (a struct) ending
    /// in a comparable value.
    static func leaf<Root>(of root: Root.Type, at keyPath: AnyKeyPath) -> StoredLeaf? {
        guard let partial = keyPath as? PartialKeyPath<Root>, let offset = MemoryLayout<Root>.offset(of: partial) else {
            return nil
        }
        return find(offset: offset, type: Swift.type(of: keyPath).valueType, in: root, names: [])
    }

    /// Searches the stored fields of `container` (and of its struct fields) for the one at
    /// `offset` (relative to `container`) with type `type`.
    private static func find(offset: Int, type: Any.Type, in container: Any.Type, names: [String]) -> StoredLeaf? {
        var found: StoredLeaf?
        _ = _forEachField(of: container) { name, fieldOffset, fieldType, kind in
            let fieldNames = names + [String(cString: name)]
            if fieldOffset == offset && fieldType == type {
                if let kind = ProbeKind(fieldType) {
                    found = StoredLeaf(names: fieldNames, kind: kind, isOptional: false)
                } else if let wrapped = (fieldType as? any OptionalProtocol.Type)?.wrappedType, let kind = ProbeKind(wrapped) {
                    found = StoredLeaf(names: fieldNames, kind: kind, isOptional: true)
                }
                return false
            }
            // A field that contains the offset: look inside it, if it is a struct of ours.
            if kind == .struct, ProbeKind(fieldType) == nil, fieldOffset <= offset,
               offset < fieldOffset + Self.size(of: fieldType) {
                found = find(offset: offset - fieldOffset, type: type, in: fieldType, names: fieldNames)
                return false
            }
            return true
        }
        return found
    }

    private static func size(of type: Any.Type) -> Int {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        return size(type)
    }
}

/// Lets reflection see through `Optional` to the wrapped type.
private protocol OptionalProtocol {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalProtocol {
    fileprivate static var wrappedType: Any.Type { Wrapped.self }
}

/// The value types a probe can give distinct values to, and so translate.
private enum ProbeKind {
    case signed, unsigned, floating, decimal, bool, string, date, uuid, url, data

    init?(_ type: Any.Type) {
        switch type {
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type: self = .signed
        case is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type: self = .unsigned
        case is Double.Type, is Float.Type: self = .floating
        case is Decimal.Type: self = .decimal
        case is Bool.Type: self = .bool
        case is String.Type: self = .string
        case is Date.Type: self = .date
        case is UUID.Type: self = .uuid
        case is URL.Type: self = .url
        case is Data.Type: self = .data
        default: return nil
        }
    }

    /// The JSON form of the probe value for `round` (0 or 1): the two differ, and fit every
    /// integer width.
    func probeValue(round: Int) -> Any {
        let first = round == 0
        switch self {
        case .signed: return first ? 101 : 57
        case .unsigned: return first ? 101 : 57
        case .floating: return first ? 1.5 : -3.25
        case .decimal: return first ? 2.75 : -6.5
        case .bool: return first
        case .string: return first ? "daokit.probe.first" : "daokit.probe.second"
        case .date: return first ? 1_000_000.5 : 2_000_000.25
        case .uuid: return first ? "00000000-0000-4000-8000-000000000001" : "00000000-0000-4000-8000-000000000002"
        case .url: return first ? "https://probe.invalid/first" : "https://probe.invalid/second"
        case .data: return Data([first ? 1 : 2, 3]).base64EncodedString()
        }
    }
}

extension StorageValue {
    /// A number for the kind of value, so that a probe can tell an `Int` from a `Double` that
    /// compares equal to it.
    var kind: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int, .uint: return 2
        case .double: return 3
        case .string: return 4
        case .date: return 5
        case .uuid: return 6
        case .url: return 7
        case .data: return 8
        case .decimal: return 9
        }
    }
}
