import DAOKit
import Foundation

/// The README's quick-start message types, which its "Command-line tool" section stores and then
/// inspects. `DAOKitTests` keeps the quick start itself compiling (`ReadmeDaoSamplesTests`); the
/// tool's tests are a target of their own, so they declare the two types they need again, exactly
/// as the README does.
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
