import DAOKit

/// Which kinds of value a column has ever held, recorded in the `daokit_field_kinds` table.
///
/// SQLite's storage classes do not tell a `Bool` from an `Int` (both INTEGER) or a `Date` from a
/// `Double` (both REAL), and `StorageFilter`'s meaning depends on the kinds compared. The query
/// translation therefore turns a comparison into SQL only when every kind a column has ever held
/// compares in SQL exactly as in Swift (see `SQLiteDialect.swift`). Kinds are only ever
/// added, inside the write transaction that first stores one, so the recorded set is always a
/// superset of what the column holds.
package struct SQLiteFieldKinds: OptionSet, Hashable {
    package let rawValue: UInt16

    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let null = SQLiteFieldKinds(rawValue: 1 << 0)
    package static let bool = SQLiteFieldKinds(rawValue: 1 << 1)
    /// A signed or unsigned integer that fits in `Int64`: INTEGER.
    package static let integer = SQLiteFieldKinds(rawValue: 1 << 2)
    /// A `UInt64` above `Int64.max`: TEXT of its digits.
    package static let bigUnsigned = SQLiteFieldKinds(rawValue: 1 << 3)
    /// A `Double` or `Float` that is not NaN: REAL.
    package static let real = SQLiteFieldKinds(rawValue: 1 << 4)
    /// `Double.nan`, which SQLite would store as NULL: TEXT `NaN`.
    package static let nan = SQLiteFieldKinds(rawValue: 1 << 5)
    package static let string = SQLiteFieldKinds(rawValue: 1 << 6)
    /// Seconds since 2001-01-01T00:00:00Z: REAL.
    package static let date = SQLiteFieldKinds(rawValue: 1 << 7)
    /// The upper-case `uuidString`: TEXT.
    package static let uuid = SQLiteFieldKinds(rawValue: 1 << 8)
    /// The absolute string, or `{"base":…,"relative":…}` for a URL with a base: TEXT.
    package static let url = SQLiteFieldKinds(rawValue: 1 << 9)
    package static let data = SQLiteFieldKinds(rawValue: 1 << 10)
    /// `Decimal.description`: TEXT.
    package static let decimal = SQLiteFieldKinds(rawValue: 1 << 11)
    /// A keyed or unkeyed container, as JSON text (a query reads it as `nil`).
    package static let json = SQLiteFieldKinds(rawValue: 1 << 12)
    /// A field of an entity stored through the JSON fallback: JSON text of any value.
    package static let opaque = SQLiteFieldKinds(rawValue: 1 << 13)

    /// Every single kind with the name it has in `daokit_field_kinds`.
    package static let named: [(kind: SQLiteFieldKinds, name: String)] = [
        (.null, "null"), (.bool, "bool"), (.integer, "integer"), (.bigUnsigned, "bigUnsigned"), (.real, "real"),
        (.nan, "nan"), (.string, "string"), (.date, "date"), (.uuid, "uuid"), (.url, "url"), (.data, "data"),
        (.decimal, "decimal"), (.json, "json"), (.opaque, "opaque"),
    ]

    /// The kind named `name`; `.opaque` (compared only in Swift) for a name this version does not know.
    package init(name: String) {
        self = Self.named.first { $0.name == name }?.kind ?? .opaque
    }

    /// The names of the kinds in the set.
    package var names: [String] { Self.named.filter { contains($0.kind) }.map(\.name) }
}
