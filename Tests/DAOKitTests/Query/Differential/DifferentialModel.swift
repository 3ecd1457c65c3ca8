import DAOKit
import Foundation

/// A domain type and its two entity types — the same fields, one declaring indexes and one not —
/// with what the differential tests need to query it: sample values, the properties conditions
/// are written on, and the keys sorts use.
///
/// Each model stands for a way a key path can fail to read the stored field it seems to (or can
/// read it exactly): the differential tests check that either way BaseDao's answers equal the
/// full scan's.
protocol DifferentialModel: SendableMetatype {
    associatedtype Domain: Codable & Identifiable & Equatable
    /// The entity declaring `static var indexes`.
    associatedtype IndexedEntity: Storable where IndexedEntity.ID == Domain.ID
    /// The same entity without indexes.
    associatedtype PlainEntity: Storable where PlainEntity.ID == Domain.ID

    /// Names the model in test names and failure messages.
    static var name: String { get }
    /// The values stored before querying: the same for the same random source. Chosen from small
    /// pools, so that conditions match some of them and sorts tie.
    static func values(_ random: inout SeededGenerator) -> [Domain]
    /// The properties generated conditions use.
    static var fields: [QueryField<Domain>] { get }
    /// The keys generated sorts use.
    static var sorts: [QuerySort<Domain>] { get }
    /// The sort by id: appended to a paged query's sort so that its page has one right answer.
    static var idSort: QuerySort<Domain> { get }
}

/// Whether a model's generic entity declares its indexes: lets one entity definition serve as
/// both the indexed and the plain entity type of a model.
protocol IndexChoice {
    static var declaresIndexes: Bool { get }
}

/// The entity declares its indexes.
enum Indexed: IndexChoice {
    static var declaresIndexes: Bool { true }
}

/// The entity declares none.
enum Unindexed: IndexChoice {
    static var declaresIndexes: Bool { false }
}

extension IndexChoice {
    /// `indexes` when the entity declares them, else none.
    static func choose(_ indexes: [StorageIndex]) -> [StorageIndex] {
        declaresIndexes ? indexes : []
    }
}
