import Foundation

/// Reads fields of an entity straight from its stored properties, at their offsets in its
/// memory, as the ``StorageValue``s ``FieldExtractor`` would read through its `encode(to:)`.
///
/// Only sound for what ``EntityFieldProof`` proved: a struct's stored property chains, each
/// holding a value the mapper keeps as itself (or an optional of one), whose encoding is that
/// value. The representation is the one ``StorageValue/init(primitive:)`` gives, the same
/// function the extractor calls for these types, so the two cannot disagree on a case.
struct StoredFieldReader: Sendable {
    /// One proven field: where it lies in the entity and what it holds.
    struct Field: Sendable {
        let offset: Int
        let kind: PrimitiveKind
        let isOptional: Bool
    }

    let fields: [Field]

    /// A reader of `leaves`, in that order, or `nil` when one of them holds a type the mapper
    /// does not keep as itself.
    init?(leaves: [StoredLeaf]) {
        var fields: [Field] = []
        for leaf in leaves {
            let valueType = leaf.isOptional ? (leaf.type as? any OptionalProtocol.Type)?.wrappedType : leaf.type
            guard let valueType, let kind = primitiveKind(of: valueType) else { return nil }
            fields.append(Field(offset: leaf.offset, kind: kind, isOptional: leaf.isOptional))
        }
        self.fields = fields
    }

    /// The values of the fields in `entity`, whose type must be the one the leaves were found in.
    func values<Entity>(of entity: Entity) -> [StorageValue] {
        withUnsafeBytes(of: entity) { bytes in
            guard let base = bytes.baseAddress else { return [] }  // a type with no stored bytes has no fields
            return fields.map { $0.value(in: base) }
        }
    }
}

extension StoredFieldReader.Field {
    /// The field's value in the entity whose memory starts at `base`.
    @inline(__always)
    func value(in base: UnsafeRawPointer) -> StorageValue {
        let field = base + offset
        switch kind {
        case .string: return read(field, as: String.self)
        case .int: return read(field, as: Int.self)
        case .bool: return read(field, as: Bool.self)
        case .double: return read(field, as: Double.self)
        case .date: return read(field, as: Date.self)
        case .url: return read(field, as: URL.self)
        case .uuid: return read(field, as: UUID.self)
        case .data: return read(field, as: Data.self)
        case .decimal: return read(field, as: Decimal.self)
        case .float: return read(field, as: Float.self)
        case .int8: return read(field, as: Int8.self)
        case .int16: return read(field, as: Int16.self)
        case .int32: return read(field, as: Int32.self)
        case .int64: return read(field, as: Int64.self)
        case .uint: return read(field, as: UInt.self)
        case .uint8: return read(field, as: UInt8.self)
        case .uint16: return read(field, as: UInt16.self)
        case .uint32: return read(field, as: UInt32.self)
        case .uint64: return read(field, as: UInt64.self)
        }
    }

    /// The value of type `T` (or `T?`) at `field`; `nil` reads as ``StorageValue/null``, as the
    /// synthesized `encode(to:)` leaves a `nil` optional out.
    @inline(__always)
    private func read<T: Encodable>(_ field: UnsafeRawPointer, as type: T.Type) -> StorageValue {
        if isOptional {
            guard let value = field.load(as: T?.self) else { return .null }
            return primitive(value)
        }
        return primitive(field.load(as: T.self))
    }

    @inline(__always)
    private func primitive<T: Encodable>(_ value: T) -> StorageValue {
        // Never `nil`: `kind` says `T` is a primitive.
        StorageValue(primitive: value) ?? .null
    }
}

/// The mapper's kind of the type `type`, opened from its metatype.
private func primitiveKind(of type: Any.Type) -> PrimitiveKind? {
    func kind<T>(_: T.Type) -> PrimitiveKind? { PrimitiveKind(T.self) }
    return kind(type)
}
