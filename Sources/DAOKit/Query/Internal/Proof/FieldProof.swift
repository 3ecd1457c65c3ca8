import DAOKitInternals
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
///    `String`, `Date`, `UUID`, `URL`, `Data`, `Decimal`, a `RawRepresentable` and `CaseIterable`
///    enum, or an optional of one);
/// 3. on probe entities — a stored entity with the field replaced by a distinct value per probe,
///    and, for an optional, by `nil` — the domain value ``EntityMapper`` produces reads at the key
///    path exactly the value the entity stores under the field (its own `encode(to:)`, the
///    representation queries evaluate), in every probe, and the stored value follows the probe.
///    An enum is probed with every one of its cases: the domain must read back the very case,
///    stored as what the case encodes as (its raw value), no two cases alike, and `==` must tell
///    every two cases apart; a stored value that is no case's must fail to map (a decoder with an
///    "unknown" fallback case is refused, since records holding other values would read as it).
///
/// Ordering comparisons and sorts need more: the stored values' order must be the domain's
/// `<`. It is for every scalar; an enum's `<` is checked on every pair of cases, and a field whose
/// enum is not `Comparable`, or whose order differs from its raw values' (a priority ordered by
/// urgency, stored as names), is proven for `==`, `!=` and membership only (``orderedField(for:)``).
///
/// 4. a stored record that lacks the field or holds `null` there (one written before the field
///    existed, read by an `init(from:)` with `decodeIfPresent(…) ?? default`) decodes to one value
///    whichever of the two it is — its *absent value* (``absentValue(of:)``), or it does not decode
///    at all. A record that decodes to a value stores `null` where the entity holds that value, so
///    ``BaseDao`` rewrites each condition on the field to hold for a stored `null` exactly when it
///    holds for the absent value, and sorts by such a field in Swift (see `QuerySemantics.md`).
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
final class FieldProof<Domain: Decodable, Entity: Storable>: QueryProof {
    private let mapper: EntityMapper
    private let sample: () throws -> Entity?
    /// Probes of the sample, once fetched; `.none` until then, `.some(nil)` when there is no
    /// usable sample.
    private var probes: FieldProbes<Entity>??

    /// A proof for one query; `sample` is called at most once, when a key path not proven before
    /// needs a probe.
    init(mapper: EntityMapper, sample: @escaping () throws -> Entity?) {
        self.mapper = mapper
        self.sample = sample
    }

    /// The absent values (rule 4) of the fields proven so far by this proof.
    private var absentValues: [FieldPath: StorageValue] = [:]

    /// The field `keyPath` reads, or `nil` when that cannot be proven.
    func field(for keyPath: AnyKeyPath) -> FieldPath? {
        provenField(for: keyPath)?.path
    }

    /// The field `keyPath` reads, when the stored values' order is also the domain values' `<`
    /// (what an ordering comparison or a sort needs); `nil` otherwise.
    func orderedField(for keyPath: AnyKeyPath) -> FieldPath? {
        guard let proven = provenField(for: keyPath), proven.isOrdered else { return nil }
        return proven.path
    }

    private func provenField(for keyPath: AnyKeyPath) -> ProvenField? {
        let cacheKey = CacheKey(
            domain: ObjectIdentifier(Domain.self), entity: ObjectIdentifier(Entity.self),
            strict: mapper.isStrict, keyPath: keyPath)
        if let known = FieldProofCache.results.withLock({ $0[cacheKey] }) { return remember(known) }
        guard let leaf = StoredLeaf.leaf(of: Domain.self, at: keyPath) else {
            FieldProofCache.results.withLock { $0[cacheKey] = .some(nil) }
            return nil
        }
        guard let probes = sampleProbes() else { return nil }  // not cached: a later query may have a sample
        let proven: ProvenField?
        if let ordered = probe(leaf, keyPath: keyPath, probes: probes),
            let absent = absentValue(leaf, keyPath: keyPath, probes: probes)
        {
            proven = ProvenField(path: FieldPath(leaf.names), absent: absent, isOrdered: ordered)
        } else {
            proven = nil
        }
        FieldProofCache.results.withLock { $0[cacheKey] = .some(proven) }
        return remember(proven)
    }

    /// What the entity holds in `field` (proven by ``field(for:)``) when its stored record lacks
    /// the field or holds `null` there; `nil` when that is `nil` or such a record does not decode,
    /// so that a stored `null` already means what the entity holds.
    func absentValue(of field: FieldPath) -> StorageValue? {
        // Usually no field has one: no need to hash the path.
        absentValues.isEmpty ? nil : absentValues[field]
    }

    /// The direction `descriptor` (on a proven key path) actually sorts in, as Foundation's
    /// `compare(_:_:)` answers for two probe values: `.forward` when it orders them as the stored
    /// values order (by ``StorageSortKey`` with its string comparator), `.reverse` when the other
    /// way. A descriptor whose `order` was set after it was made can compare in its original
    /// direction (Foundation keeps that for `Comparable` and string-comparator key paths); the
    /// translated sort must follow what `compare` does, not what `order` says. `nil` when the
    /// probes cannot tell.
    func effectiveOrder(of descriptor: SortDescriptor<Domain>, field: FieldPath) -> SortOrder? {
        let tableKey = OrderTableKey(
            domain: ObjectIdentifier(Domain.self), entity: ObjectIdentifier(Entity.self), strict: mapper.isStrict)
        if let known = FieldProofCache.orders.withLock({ OrderTable<Domain>.in($0, at: tableKey)?.orders[descriptor] })
        {
            return known
        }
        guard let keyPath = descriptor.keyPath, let leaf = StoredLeaf.leaf(of: Domain.self, at: keyPath),
            let probes = sampleProbes()
        else { return nil }
        var found: SortOrder?
        if let first = probes.entity(setting: leaf, round: 0), let second = probes.entity(setting: leaf, round: 1),
            let lhs = try? mapper.map(first, to: Domain.self), let rhs = try? mapper.map(second, to: Domain.self),
            let left = storageValue(of: lhs[keyPath: keyPath]), let right = storageValue(of: rhs[keyPath: keyPath])
        {
            let natural = StorageSortKey(field, stringComparator: descriptor.stringComparator).compare(left, right)
            let said = descriptor.compare(lhs, rhs)
            if natural != .orderedSame && said != .orderedSame { found = said == natural ? .forward : .reverse }
        }
        FieldProofCache.orders.withLock { tables in
            let table = OrderTable<Domain>.in(tables, at: tableKey) ?? OrderTable<Domain>()
            tables[tableKey] = table
            table.orders[descriptor] = .some(found)
        }
        return found
    }

    private func remember(_ proven: ProvenField?) -> ProvenField? {
        guard let proven else { return nil }
        if let value = proven.absent.value { absentValues[proven.path] = value }
        return proven
    }

    /// Rule 4: the value a record without the field (or with `null` in it) decodes to, as
    /// `.some(nil)` when it is `nil` or the record does not decode; `nil` when the two records
    /// decode to different values, or the domain value does not read what the entity holds.
    private func absentValue(_ leaf: StoredLeaf, keyPath: AnyKeyPath, probes: FieldProbes<Entity>) -> AbsentValue? {
        let extractor = FieldExtractor(fields: [FieldPath(leaf.names)])
        var found: StorageValue?
        for absent in [true, false] {
            guard let entity = probes.entity(lacking: leaf, absent: absent) else { continue }
            guard let stored = try? extractor.values(of: entity)[0],
                let domain = try? mapper.map(entity, to: Domain.self)
            else { return nil }
            guard let value = domain[keyPath: keyPath], let read = storageValue(of: value),
                read.kind == stored.kind, StorageValue.equal(read, stored)
            else { return nil }
            if let found, !(found.kind == stored.kind && StorageValue.equal(found, stored)) { return nil }
            found = stored
        }
        guard let found, !found.isNull else { return AbsentValue(value: nil) }
        return AbsentValue(value: found)
    }

    private func sampleProbes() -> FieldProbes<Entity>? {
        if let probes { return probes }
        let made = (try? sample()).flatMap { FieldProbes(sample: $0) }
        probes = .some(made)
        return made
    }

    /// Runs the probes for one leaf: distinct values (every case of an enum), and `nil` for an
    /// optional. `nil` when the field is not proven; otherwise whether its stored order is the
    /// domain's `<`.
    private func probe(_ leaf: StoredLeaf, keyPath: AnyKeyPath, probes: FieldProbes<Entity>) -> Bool? {
        let extractor = FieldExtractor(fields: [FieldPath(leaf.names)])
        let cases: EnumCases? = if case .enumeration(let cases) = leaf.kind { cases } else { nil }
        var seen: [StorageValue] = []
        for round in FieldProbes<Entity>.rounds(of: leaf) {
            guard let entity = probes.entity(setting: leaf, round: round),
                let domain = try? mapper.map(entity, to: Domain.self),
                let stored = try? extractor.values(of: entity)[0],
                let value = domain[keyPath: keyPath], let read = storageValue(of: value),
                read.kind == stored.kind, StorageValue.equal(read, stored)
            else { return nil }
            // The stored value must follow the probe: a field that ignores what it is given proves nothing.
            if seen.contains(where: { StorageValue.equal($0, stored) }) { return nil }
            seen.append(stored)
            // An enum's domain value must be the very case probed, not one stored alike.
            if let cases, round < cases.cases.count {
                guard let read = unwrapped(value), cases.equal(read, cases.cases[round]) else { return nil }
            }
        }
        guard let cases else { return true }
        // A stored value that is no case's must not read as a case (or the entity refuses it).
        if let entity = probes.entity(setting: leaf, to: cases.outsider),
            (try? mapper.map(entity, to: Domain.self)) != nil
        {
            return nil
        }
        return cases.storedOrder(Array(seen.prefix(cases.cases.count)))
    }
}

/// `value` without the optionals it is wrapped in; `nil` for `nil`.
private func unwrapped(_ value: Any) -> Any? {
    guard let optional = value as? any OptionalProtocol else { return value }
    return optional.wrappedAny.flatMap(unwrapped)
}

/// A value read through a key path as a query sees it, if it has a scalar form.
private func storageValue(of value: Any) -> StorageValue? {
    guard let encodable = value as? any Encodable else { return nil }
    return StorageValue(encoding: encodable)
}

/// A proven field, its absent value (rule 4), and whether an ordering comparison or a sort on
/// it may go to the context.
private struct ProvenField {
    let path: FieldPath
    let absent: AbsentValue
    let isOrdered: Bool
}

/// The value a record lacking a field decodes to; `value` is `nil` when that is `nil` or the
/// record does not decode (a stored `null` then needs no rewriting).
private struct AbsentValue {
    let value: StorageValue?
}

private struct OrderTableKey: Hashable {
    let domain: ObjectIdentifier, entity: ObjectIdentifier, strict: Bool
}

/// The effective directions of one type pair's sort descriptors, keyed by the descriptors
/// themselves: no descriptor is boxed in an `AnyHashable` to be looked up, on every sorted query.
/// Only touched under `FieldProofCache.orders`' lock.
private final class OrderTable<Domain> {
    var orders: [SortDescriptor<Domain>: SortOrder?] = [:]

    /// The table of `Domain` in `tables`, if there is one yet: the key names `Domain`, so the
    /// table under it is this type's.
    static func `in`(_ tables: [OrderTableKey: AnyObject], at key: OrderTableKey) -> OrderTable? {
        tables[key].map { unsafeDowncast($0, to: OrderTable.self) }
    }
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
    static let results = Locked<[CacheKey: ProvenField?]>([:])
    /// Effective directions of sort descriptors (``FieldProof/effectiveOrder(of:field:)``), an
    /// `OrderTable` per type pair; sound as `Sendable` for the reason above (the tables are only
    /// touched under the lock, and a descriptor's key path is a stored property's).
    static let orders = Locked<[OrderTableKey: AnyObject]>([:])
}
