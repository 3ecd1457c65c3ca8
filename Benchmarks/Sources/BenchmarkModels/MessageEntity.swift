import DAOKit
import Foundation

/// How a ``Message`` is stored: a mutable final class whose every property has a default, the shape
/// storage layers (Core Data, Realm, ORMs) typically want.
///
/// The defaults are constants rather than `Date()`, so creating an entity costs the same in every
/// variant and no benchmark pays for reading the clock.
///
/// The fields other than `id` are internal on purpose. In an app the entity and its hand-written
/// translator usually live in one module, where whole-module optimization proves that no two
/// accesses to these fields can overlap and drops Swift's runtime exclusivity checks on them.
/// Public fields would keep a check on every read and write (measured here: the translator about
/// 1.5× slower), a cost such translators do not pay, and every mapper/manual ratio would look
/// better than it is.
/// Nothing outside this module needs the fields: the benchmarks go through the translators and
/// `Codable`. `id` is public because `Storable` (`Identifiable`) requires it.
public final class MessageEntity: Codable, Storable {
    public var id: Int = 0
    var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    var text: String = ""
    var senderId: Int = 0
    var receiverId: Int = 0
    var type: MessageType = .text
    var isIncoming: Bool = false
    var isRead: Bool = false
    var attachment: URL? = nil
    var note: String? = nil

    public init() {}
}
