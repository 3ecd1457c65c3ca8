import Foundation

/// The cases of an enum a probe walks: a `RawRepresentable`, `CaseIterable`, `Encodable` enum
/// whose cases each encode as one scalar (its raw value, for a synthesized conformance).
///
/// An enum field is proven by probing every case, not two values: a stored enum is a finite set of
/// values, and only the whole set shows that each case is stored as its own value (so `==` on the
/// stored values is `==` on the cases) and whether the stored values' order is the enum's own `<`
/// (so that an ordering comparison or a sort may be handed to the context too).
struct EnumCases {
    /// The type's `allCases`, in declaration order.
    let cases: [Any]
    /// The JSON form of each case's encoding, what a probe stores.
    let json: [Any]
    /// The type's `==`.
    let equal: (Any, Any) -> Bool
    /// The type's `<`, when it is `Comparable`.
    let less: ((Any, Any) -> Bool)?
    /// A JSON value of the cases' own JSON type that no case encodes as: a decoder that reads it
    /// as some case anyway (an "unknown" fallback) would make a stored value the probes never
    /// set read as a case, so a probe storing it must fail to map.
    let outsider: Any

    /// More cases than this are not probed: each case costs a decode and a mapping, and each pair
    /// a comparison.
    static let maximumCount = 256

    /// The cases of `type`, or `nil` when it is not such an enum, has no case or too many, or a
    /// case does not encode as one scalar.
    init?(_ type: Any.Type) {
        guard type is any RawRepresentable.Type, let iterable = type as? any CaseIterable.Type,
            let equatable = type as? any Equatable.Type, type is any Encodable.Type
        else { return nil }
        func allCases<T: CaseIterable>(_: T.Type) -> [Any] { T.allCases.map { $0 as Any } }
        let cases = allCases(iterable)
        guard !cases.isEmpty, cases.count <= Self.maximumCount else { return nil }
        var json: [Any] = []
        for value in cases {
            guard let encodable = value as? any Encodable, let scalar = StorageValue(encoding: encodable),
                !scalar.isNull,
                let fragment = Self.jsonFragment(encodable)
            else { return nil }
            json.append(fragment)
        }
        func equality<T: Equatable>(_: T.Type) -> (Any, Any) -> Bool {
            { lhs, rhs in
                guard let lhs = lhs as? T, let rhs = rhs as? T else { return false }
                return lhs == rhs
            }
        }
        func ordering<T: Comparable>(_: T.Type) -> (Any, Any) -> Bool {
            { lhs, rhs in
                guard let lhs = lhs as? T, let rhs = rhs as? T else { return false }
                return lhs < rhs
            }
        }
        let candidates: [Any] =
            json.allSatisfy { $0 is String }
            ? ["daokit.probe.outsider", "daokit.probe.outsider.2"] : [987_654_321, -987_654_321, 123_456_789]
        guard
            let outsider = candidates.first(where: { candidate in
                !json.contains { ($0 as? NSObject)?.isEqual(candidate) ?? false }
            })
        else { return nil }
        self.cases = cases
        self.json = json
        self.outsider = outsider
        equal = equality(equatable)
        less = (type as? any Comparable.Type).map { ordering($0) }
    }

    /// Whether `stored`, the value each case (in ``cases`` order) is stored as, tells the cases
    /// apart exactly as the type's `==` does: `nil` when it does not (two cases stored alike, or
    /// a custom `==` that finds two cases equal); otherwise whether the stored values are ordered
    /// as the type's `<` orders the cases (`false` when it is not `Comparable`).
    func storedOrder(_ stored: [StorageValue]) -> Bool? {
        guard stored.count == cases.count else { return nil }
        var ordered = less != nil
        for i in cases.indices {
            for j in cases.indices {
                guard equal(cases[i], cases[j]) == (i == j), StorageValue.equal(stored[i], stored[j]) == (i == j) else {
                    return nil
                }
                if let less, ordered,
                    less(cases[i], cases[j]) != (StorageValue.compare(stored[i], stored[j]) == .orderedAscending)
                {
                    ordered = false
                }
            }
        }
        return ordered
    }

    /// `value`'s encoding as a JSON value (a string or number for a raw value).
    private static func jsonFragment(_ value: any Encodable) -> Any? {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        guard let data = try? encoder.encode(value) else { return nil }
        return try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
    }
}
