import DAOKit

/// A task of the transaction checks: a project's task, the first of two related types.
package struct FixtureTxTask: Codable, Identifiable, Equatable, Sendable {
    /// The identifier.
    package var id: String
    /// The project it belongs to (indexed in its entity).
    package var project: String
    /// The title.
    package var title: String

    /// Creates a task.
    package init(id: String, project: String, title: String) {
        self.id = id
        self.project = project
        self.title = title
    }
}

/// The stored form of ``FixtureTxTask``, indexed by project so that queries inside a transaction
/// go through an index where the context has them.
package struct FixtureTxTaskEntity: Storable, Equatable, Sendable {
    /// The identifier.
    package var id: String
    /// The project.
    package var project: String
    /// The title.
    package var title: String
    /// An index on `project`.
    package static var indexes: [StorageIndex] { [StorageIndex("project")] }
}

/// A comment on a task: the second type a transaction writes.
package struct FixtureTxComment: Codable, Identifiable, Equatable, Sendable {
    /// The identifier.
    package var id: String
    /// The task commented on.
    package var taskID: String
    /// The text.
    package var text: String

    /// Creates a comment.
    package init(id: String, taskID: String, text: String) {
        self.id = id
        self.taskID = taskID
        self.text = text
    }
}

/// The stored form of ``FixtureTxComment``.
package struct FixtureTxCommentEntity: Storable, Equatable, Sendable {
    /// The identifier.
    package var id: String
    /// The task commented on.
    package var taskID: String
    /// The text.
    package var text: String
}

/// A record written after a transaction, whose announcement tells that every earlier one has been
/// delivered.
package struct FixtureTxMarker: Storable, Equatable, Sendable {
    /// The identifier.
    package var id: String

    /// Creates a marker.
    package init(id: String) { self.id = id }
}

/// The DAO of ``FixtureTxTask``.
package typealias FixtureTxTaskDao = BaseDao<FixtureTxTask, FixtureTxTaskEntity>
/// The DAO of ``FixtureTxComment``.
package typealias FixtureTxCommentDao = BaseDao<FixtureTxComment, FixtureTxCommentEntity>
