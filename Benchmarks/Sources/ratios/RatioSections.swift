/// The sections `ratios` knows, in report order.
enum RatioSections {
    static func all() -> [any RatioSection.Type] {
        [
            MappingRatioSection.self, CodableFloorRatioSection.self, DaoRatioSection.self, FileRatioSection.self,
            KeyValueRatioSection.self, QueryRatioSection.self, SQLiteRatioSection.self, ObserveRatioSection.self,
            IndexRatioSection.self, TransactionRatioSection.self, ChecksumRatioSection.self, VersionRatioSection.self,
            MigrationRatioSection.self,
        ]
    }
}
