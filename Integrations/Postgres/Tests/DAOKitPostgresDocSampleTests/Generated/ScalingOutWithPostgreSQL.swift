// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/ScalingOutWithPostgreSQL.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import DAOKitPostgres
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/ScalingOutWithPostgreSQL.md:29
private struct Message: Codable, Identifiable, Sendable {
    var id: String
    var dialogID: String
    var text: String
    var date: Date
}

// Sources/DAOKit/DAOKit.docc/ScalingOutWithPostgreSQL.md:36
private struct MessageEntity: Storable, Sendable {
    static var indexes: [StorageIndex] { [StorageIndex("dialogID", "date")] }
    var id: String
    var dialogID: String
    var text: String
    var date: Date
}

// Sources/DAOKit/DAOKit.docc/ScalingOutWithPostgreSQL.md:44
private func makeMessages(password: String) -> BaseDao<Message, MessageEntity> {
    // Was: let store = try SQLiteStorageContext(file: folder.appendingPathComponent("messages.sqlite"))
    let store = PostgresStorageContext(configuration: .init(
        host: "db.internal", username: "app", password: password, database: "messenger", tls: .require))
    return BaseDao<Message, MessageEntity>(context: store)
}
