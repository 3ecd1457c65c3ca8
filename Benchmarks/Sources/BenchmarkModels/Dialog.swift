/// A conversation as the app's domain code sees it; the benchmarks give it 20 messages, so it measures
/// nested keyed containers and arrays of them, not just a flat record.
public struct Dialog: Codable, Equatable, Identifiable, Sendable {
    public var id: Int
    public var isPinned: Bool
    public var title: String
    public var messages: [Message]
    public var tags: [String]

    public init(id: Int, isPinned: Bool, title: String, messages: [Message], tags: [String]) {
        self.id = id
        self.isPinned = isPinned
        self.title = title
        self.messages = messages
        self.tags = tags
    }
}
