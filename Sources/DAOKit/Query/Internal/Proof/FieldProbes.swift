import Foundation

/// Probe entities: a sample entity with one stored field replaced by a probe value, made through
/// the entity's own `init(from:)`, for the proofs that a field reads what the entity stores.
///
/// Probes start from the sample's own encoding, so the fields a probe leaves alone hold valid
/// values. JSON only builds them; what a proof compares is what the entity (and the mapper) do
/// with them.
struct FieldProbes<Entity: Codable> {
    /// The sample as a JSON object.
    private let base: [String: Any]

    /// Probes of `sample`, or `nil` when it does not encode as a JSON object.
    init?(sample: Entity) {
        guard let data = try? Self.encoder.encode(sample),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return nil }
        base = object
    }

    /// How many probes a leaf gets: two distinct values (every case of an enum), and `nil` for
    /// an optional, last.
    static func rounds(of leaf: StoredLeaf) -> Range<Int> {
        0..<(leaf.kind.valueCount + (leaf.isOptional ? 1 : 0))
    }

    /// Whether `round` of ``rounds(of:)`` is the one that sets `nil`.
    static func isNilRound(_ round: Int, of leaf: StoredLeaf) -> Bool { round == leaf.kind.valueCount }

    /// The sample with `leaf` set to the probe value of `round`, decoded by the entity's own
    /// `init(from:)`; `nil` when that fails.
    func entity(setting leaf: StoredLeaf, round: Int) -> Entity? {
        entity(setting: leaf, to: Self.isNilRound(round, of: leaf) ? NSNull() : leaf.kind.probeValue(round: round))
    }

    /// The sample with `leaf` set to the JSON value `value`, decoded by the entity's own
    /// `init(from:)`; `nil` when that fails.
    func entity(setting leaf: StoredLeaf, to value: Any) -> Entity? {
        var object = base
        guard Self.set(value, at: leaf.names, in: &object),
            let data = try? JSONSerialization.data(withJSONObject: object)
        else { return nil }
        return try? Self.decoder.decode(Entity.self, from: data)
    }

    /// The sample as a record stored before the field existed (`absent`) or holding `null` in it,
    /// decoded by the entity's own `init(from:)`; `nil` when that fails (such a record does not
    /// decode).
    func entity(lacking leaf: StoredLeaf, absent: Bool) -> Entity? {
        var object = base
        guard absent ? Self.remove(at: leaf.names, in: &object) : Self.set(NSNull(), at: leaf.names, in: &object),
            let data = try? JSONSerialization.data(withJSONObject: object)
        else { return nil }
        return try? Self.decoder.decode(Entity.self, from: data)
    }

    private static func remove(at path: [String], in object: inout [String: Any]) -> Bool {
        guard let first = path.first else { return false }
        if path.count == 1 {
            object[first] = nil
            return true
        }
        guard var nested = object[first] as? [String: Any], remove(at: Array(path.dropFirst()), in: &nested) else {
            return false
        }
        object[first] = nested
        return true
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
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
