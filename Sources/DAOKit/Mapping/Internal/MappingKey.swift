/// The coding key DAOKit uses in coding paths it builds itself (array indices, `super`, keys
/// recovered from the mapped representation).
struct MappingKey: CodingKey, Sendable {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The key of an element of an unkeyed container.
    static func index(_ index: Int) -> MappingKey {
        MappingKey(stringValue: "Index \(index)", intValue: index)
    }

    /// The key `superEncoder()` and `superDecoder()` use, as in `JSONEncoder`.
    static let `super` = MappingKey(stringValue: "super")

    private init(stringValue: String, intValue: Int) {
        self.stringValue = stringValue
        self.intValue = intValue
    }
}
