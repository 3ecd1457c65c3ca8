@_spi(Reflection) import Swift

/// A stored property chain of a struct ending in a value a query compares: what both proofs —
/// ``FieldProof`` for a domain key path, ``EntityFieldProof`` for an entity's field — start from.
///
/// Found through the standard library's reflection, which lists a struct's stored properties
/// with their offsets and lists nothing for a class, an enum or an optional; so a computed
/// property, a class, or a chain through an optional is never a leaf.
struct StoredLeaf {
    /// The property names from the root: the coding keys synthesized conformances use.
    let names: [String]
    let kind: ProbeKind
    let isOptional: Bool
    /// The property's own type (`T` or `T?`).
    let type: Any.Type
    /// Where the property lies from the start of the root value.
    let offset: Int

    /// The leaf `keyPath` reads, if it is a chain of stored properties of `Root` (a struct) ending
    /// in a comparable value.
    static func leaf<Root>(of root: Root.Type, at keyPath: AnyKeyPath) -> StoredLeaf? {
        guard let partial = keyPath as? PartialKeyPath<Root>, let offset = MemoryLayout<Root>.offset(of: partial) else {
            return nil
        }
        return find(offset: offset, type: Swift.type(of: keyPath).valueType, in: root, names: [], base: 0)
    }

    /// The leaf the property names `names` reach from `root` (a struct), one stored property per
    /// name, if it ends in a comparable value.
    static func leaf(of root: Any.Type, named names: [String]) -> StoredLeaf? {
        var container = root
        var offset = 0
        for (depth, name) in names.enumerated() {
            var found: (offset: Int, type: Any.Type, kind: _MetadataKind)?
            _ = _forEachField(of: container) { fieldName, fieldOffset, fieldType, kind in
                guard String(cString: fieldName) == name else { return true }
                found = (fieldOffset, fieldType, kind)
                return false
            }
            guard let found else { return nil }
            offset += found.offset
            if depth == names.count - 1 { return make(names: names, type: found.type, offset: offset) }
            guard found.kind == .struct, ProbeKind(found.type) == nil else { return nil }
            container = found.type
        }
        return nil
    }

    /// Searches the stored fields of `container` (and of its struct fields) for the one at
    /// `offset` (relative to `container`, which lies at `base` in the root) with type `type`.
    private static func find(offset: Int, type: Any.Type, in container: Any.Type, names: [String], base: Int)
        -> StoredLeaf?
    {
        var found: StoredLeaf?
        _ = _forEachField(of: container) { name, fieldOffset, fieldType, kind in
            let fieldNames = names + [String(cString: name)]
            if fieldOffset == offset && fieldType == type {
                found = make(names: fieldNames, type: fieldType, offset: base + fieldOffset)
                return false
            }
            // A field that contains the offset: look inside it, if it is a struct of ours.
            if kind == .struct, ProbeKind(fieldType) == nil, fieldOffset <= offset,
                offset < fieldOffset + Self.size(of: fieldType)
            {
                found = find(
                    offset: offset - fieldOffset, type: type, in: fieldType, names: fieldNames,
                    base: base + fieldOffset)
                return false
            }
            return true
        }
        return found
    }

    /// The leaf a property of `type` is, if a query compares its values.
    private static func make(names: [String], type: Any.Type, offset: Int) -> StoredLeaf? {
        if let kind = ProbeKind(type) {
            return StoredLeaf(names: names, kind: kind, isOptional: false, type: type, offset: offset)
        }
        if let wrapped = (type as? any OptionalProtocol.Type)?.wrappedType, let kind = ProbeKind(wrapped) {
            return StoredLeaf(names: names, kind: kind, isOptional: true, type: type, offset: offset)
        }
        return nil
    }

    private static func size(of type: Any.Type) -> Int {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        return size(type)
    }
}

/// Lets reflection see through `Optional` to the wrapped type.
protocol OptionalProtocol {
    static var wrappedType: Any.Type { get }
    /// The wrapped value, `nil` for `.none`.
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    static var wrappedType: Any.Type { Wrapped.self }
    var wrappedAny: Any? { self.map { $0 as Any } }
}
