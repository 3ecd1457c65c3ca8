import DAOKit
import Foundation

/// How ``DialogMessage`` is stored, with or without indexes: `Indexing` says which, so the query
/// benchmarks run the same entity both ways.
public struct DialogMessageEntity<Indexing: DialogMessageIndexing>: Storable {
    public static var entityName: String { Indexing.entityName }
    public static var indexes: [StorageIndex] { Indexing.indexes }

    public var id: Int
    var dialogID: Int
    var date: Date
    var text: String
    var senderId: Int
    var receiverId: Int
    var type: MessageType
    var isIncoming: Bool
    var isRead: Bool
    var attachment: URL?
    var note: String?
}

/// The indexes a ``DialogMessageEntity`` declares, and its entity name (two entity types must not
/// share one).
public protocol DialogMessageIndexing: Sendable {
    static var entityName: String { get }
    static var indexes: [StorageIndex] { get }
}

/// The indexes the screen query needs: dialog then date (the example), and read state.
public enum DialogIndexed: DialogMessageIndexing {
    public static var entityName: String { "IndexedDialogMessage" }
    public static var indexes: [StorageIndex] { [StorageIndex("dialogID", "date"), StorageIndex("isRead")] }
}

/// No indexes: every query scans.
public enum Unindexed: DialogMessageIndexing {
    public static var entityName: String { "DialogMessage" }
    public static var indexes: [StorageIndex] { [] }
}
