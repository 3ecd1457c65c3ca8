/// What a message carries. A `String` raw-value enum, because that is how most apps model it and
/// because converting it exercises the mapper's single-value (raw value) path.
public enum MessageType: String, Codable, Sendable, CaseIterable {
    case text
    case photo
    case voice
    case file
    case system
}
