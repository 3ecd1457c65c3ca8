import Foundation

/// The value types a probe can give distinct values to, and so prove.
enum ProbeKind {
    case signed, unsigned, floating, decimal, bool, string, date, uuid, url, data
    /// An enum whose every case is probed (``EnumCases``).
    case enumeration(EnumCases)

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
        default:
            guard let cases = EnumCases(type) else { return nil }
            self = .enumeration(cases)
        }
    }

    /// How many distinct values a probe sets: two, or every case of an enum.
    var valueCount: Int {
        if case .enumeration(let cases) = self { return cases.cases.count }
        return 2
    }

    /// The JSON form of the probe value for `round` (below ``valueCount``): the values differ,
    /// and fit every integer width.
    func probeValue(round: Int) -> Any {
        let first = round == 0
        switch self {
        case .enumeration(let cases): return cases.json[round]
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
