import DAOKitInternals

/// Reads a fixed list of fields from entities: straight from their stored properties where
/// ``EntityFieldProof`` proves that gives what their `encode(to:)` stores, through
/// ``FieldExtractor`` everywhere else.
///
/// The proof runs once per entity type and field list in the process, with the first entity read
/// as its sample; each reader also remembers the answer for the first type it reads, so that a
/// read costs one uncontended lock on top of the loads, not a dictionary lookup.
final class EntityFieldReader: Sendable {
    let fields: [FieldPath]
    /// Reads the fields through `encode(to:)`: for every entity type the proof does not hold for.
    let extractor: FieldExtractor
    /// The first entity type read and its proven reader, if any.
    private let first = Locked<(type: ObjectIdentifier, reader: StoredFieldReader?)?>(nil)

    init(fields: [FieldPath]) {
        self.fields = fields
        extractor = FieldExtractor(fields: fields)
    }

    /// The values of the fields in `entity`, in ``fields`` order, as ``FieldExtractor/values(of:)``
    /// reads them.
    /// - Throws: what `entity`'s `encode(to:)` throws, where it is called.
    func values<Entity: Codable>(of entity: Entity) throws -> [StorageValue] {
        if let reader = reader(sampling: entity) { return reader.values(of: entity) }
        return try extractor.values(of: entity)
    }

    /// The proven reader for `Entity`, proving it with `entity` when no entity of its type was
    /// read before.
    private func reader<Entity: Codable>(sampling entity: Entity) -> StoredFieldReader? {
        let type = ObjectIdentifier(Entity.self)
        if let known = first.withLock({ $0 }), known.type == type { return known.reader }
        guard !fields.isEmpty else { return nil }
        let reader = EntityFieldProof.reader(for: Entity.self, fields: fields, sample: entity)
        first.withLock { known in
            if known == nil { known = (type, reader) }
        }
        return reader
    }
}
