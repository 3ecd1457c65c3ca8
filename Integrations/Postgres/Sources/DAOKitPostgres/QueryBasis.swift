import DAOKitSQL

/// What the SQL of a query is built on, which each statement checks in its own snapshot (see
/// `PostgresStorageContext+Query.swift`): the kinds recorded for the entity's fields and how many
/// (field, kind) rows that is, and the oldest entity version its table stores.
struct QueryBasis {
    /// The kinds the translation uses: those recorded, with the fields that older rows hold
    /// otherwise made ``JSONRecord/FieldKind/opaque``.
    var kinds: [String: Set<JSONRecord.FieldKind>]
    /// How many (field, kind) rows were recorded.
    var kindRows: Int
    /// The oldest entity version stored (0: no rows), for an entity whose older records hold
    /// fields otherwise; 0 for any other.
    var oldest: Int
    /// The SQL a statement reads the oldest version with: `0` for an entity whose versions change
    /// no field, which never needs to know.
    var oldestSQL: String

    /// What one statement saw.
    struct Seen {
        var kindRows: Int
        var oldest: Int

        /// What a statement that returned nothing readable saw: matches nothing.
        static let unknown = Seen(kindRows: -1, oldest: -1)
    }

    /// Whether a statement built on this basis saw it.
    func matches(_ seen: Seen) -> Bool {
        seen.kindRows == kindRows && seen.oldest == oldest
    }
}
