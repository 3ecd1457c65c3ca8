/// How a conversion is done; the raw value is the name printed in reports.
public enum ConversionStrategy: String, CaseIterable, Sendable {
    /// The hand-written ``BenchmarkModels/ModelTranslator``: the baseline.
    case manual
    /// DAOKit's `EntityMapper` in its default (lenient) mode.
    case mapper
    /// `JSONEncoder` then `JSONDecoder`: the usual Codable shortcut the mapper must beat.
    case json
    /// Binary `PropertyListEncoder` then `PropertyListDecoder`.
    case plist
}
