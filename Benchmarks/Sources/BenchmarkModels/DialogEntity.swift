import DAOKit

/// How a ``Dialog`` is stored: a final class with defaults that owns its ``MessageEntity`` values.
///
/// Its fields other than `id` are internal for the reason given on ``MessageEntity``.
public final class DialogEntity: Codable, Storable {
    public var id: Int = 0
    var isPinned: Bool = false
    var title: String = ""
    var messages: [MessageEntity] = []
    var tags: [String] = []

    public init() {}
}
