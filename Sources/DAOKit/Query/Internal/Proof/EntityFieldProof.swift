import DAOKitInternals

/// Answers "can these fields of this entity type be read straight from its stored properties?"
/// — only when it is proven that each property holds exactly what the entity's own
/// `encode(to:)` stores under the field: what lets indexes and queries read an entity's fields
/// without encoding it (``EntityFieldReader``).
///
/// **The rule.** A field list is proven for an entity type only when, for every field:
/// 1. the entity is a struct and the field's coding keys name a chain of its stored properties
///    (the standard library's reflection lists them with their offsets; a class, a computed
///    property, a property wrapper's or a lazy property's storage, or a chain through an optional
///    is never found);
/// 2. the property holds a value the mapper keeps as itself — an integer, floating-point number,
///    `Bool`, `String`, `Date`, `UUID`, `URL`, `Data`, `Decimal` — or an optional of one;
/// 3. the value read from the properties equals, case for case, the value ``FieldExtractor``
///    reads through `encode(to:)`, for the sample entity and for probe entities made from it with
///    the field replaced by two distinct values (and by `nil` for an optional) through the
///    entity's own `init(from:)` — and the stored value follows the probe (it differs between the
///    two values, and is ``StorageValue/null`` for `nil`).
///
/// Synthesized `Codable` conformances pass. Custom `CodingKeys` that rename or swap fields, a
/// coder that transforms a value, or a property stored in another representation (a `Date` as a
/// number) fail (3), and the entity's fields are read through `encode(to:)` as before. A coder
/// that changes a value only for inputs the probes do not hit could pass, as it could for
/// ``FieldProof``.
///
/// Results are kept per entity type and field list for the life of the process.
enum EntityFieldProof {
    /// The reader of `fields` for `Entity`, proven once per process with `sample` (the first
    /// entity that needs it), or `nil` when the rule does not hold.
    static func reader<Entity: Codable>(for type: Entity.Type, fields: [FieldPath], sample: Entity)
        -> StoredFieldReader?
    {
        let key = CacheKey(entity: ObjectIdentifier(Entity.self), fields: fields)
        if let known = cache.withLock({ $0[key] }) { return known }
        let proven = prove(Entity.self, fields: fields, sample: sample)
        cache.withLock { $0[key] = .some(proven) }
        return proven
    }

    /// Runs the proof of ``reader(for:fields:sample:)`` without consulting or filling the cache.
    static func prove<Entity: Codable>(_ type: Entity.Type, fields: [FieldPath], sample: Entity) -> StoredFieldReader? {
        guard !fields.isEmpty, !(Entity.self is AnyClass) else { return nil }
        var leaves: [StoredLeaf] = []
        for field in fields {
            guard let leaf = StoredLeaf.leaf(of: Entity.self, named: field.keys) else { return nil }
            leaves.append(leaf)
        }
        guard let reader = StoredFieldReader(leaves: leaves), let probes = FieldProbes(sample: sample) else {
            return nil
        }
        let extractor = FieldExtractor(fields: fields)
        /// The values both ways, when they are the same.
        func agreed(_ entity: Entity) -> [StorageValue]? {
            guard let stored = try? extractor.values(of: entity) else { return nil }
            let read = reader.values(of: entity)
            return zip(stored, read).allSatisfy(identical) ? stored : nil
        }
        guard agreed(sample) != nil else { return nil }
        for (position, leaf) in leaves.enumerated() {
            var previous: StorageValue?
            for round in FieldProbes<Entity>.rounds(of: leaf) {
                guard let entity = probes.entity(setting: leaf, round: round), let values = agreed(entity) else {
                    return nil
                }
                let stored = values[position]
                // The stored value must follow the probe: a field that ignores what it is given proves nothing.
                if FieldProbes<Entity>.isNilRound(round, of: leaf) {
                    guard stored.isNull else { return nil }
                } else {
                    guard !stored.isNull, previous.map({ !identical($0, stored) }) ?? true else { return nil }
                    previous = stored
                }
            }
        }
        return reader
    }

    /// Proven (or refuted: `.some(nil)`) field lists. Sound as `Sendable`: only touched under the
    /// lock, and readers are immutable values.
    private static let cache = Locked<[CacheKey: StoredFieldReader?]>([:])

    private struct CacheKey: Hashable {
        let entity: ObjectIdentifier
        let fields: [FieldPath]
    }
}

/// Whether two values are the same case with the same payload; a `Double` by its bits, so that a
/// `nan` read both ways counts as the same.
private func identical(_ lhs: StorageValue, _ rhs: StorageValue) -> Bool {
    if case .double(let a) = lhs, case .double(let b) = rhs { return a.bitPattern == b.bitPattern }
    return lhs == rhs
}
