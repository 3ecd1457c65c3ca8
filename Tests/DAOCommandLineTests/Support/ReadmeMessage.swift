import DAOKit
import Foundation

/// The message types of the `dao` tool's article (Sources/DAOKit/DAOKit.docc/DaoTool.md), whose
/// sample store the article inspects. The article's sample itself is compiled and run by
/// DocSampleTests; these tests check the outputs the article shows, so they declare the two types
/// again, exactly as the article does.
enum Readme {
    /// What the app works with.
    struct Message: Codable, Identifiable, Equatable {
        var id: UUID
        var dialogID: String
        var author: String
        var text: String
        var date: Date
        var isRead: Bool
    }

    /// What is stored: the same field names (the mapper matches by name), plus `Storable`.
    struct MessageEntity: Storable {
        var id: UUID
        var dialogID: String
        var author: String
        var text: String
        var date: Date
        var isRead: Bool
    }
}
