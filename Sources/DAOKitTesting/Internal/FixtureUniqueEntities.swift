import DAOKit

/// An account of the unique-index checks: one per e-mail address, and one per handle in a region.
package struct FixtureAccount: Codable, Identifiable, Equatable, Sendable {
    /// The identifier.
    package var id: String
    /// The e-mail address, unique when present; `nil` for an account without one.
    package var email: String?
    /// The region the handle is unique in.
    package var region: String
    /// The handle, unique within its region.
    package var handle: String
    /// A field no index covers.
    package var name: String

    /// Creates an account.
    package init(id: String, email: String?, region: String = "eu", handle: String? = nil, name: String = "") {
        self.id = id
        self.email = email
        self.region = region
        self.handle = handle ?? id
        self.name = name
    }
}

/// The stored form of ``FixtureAccount``: a unique index on `email`, and one on `region` and
/// `handle` together.
package struct FixtureAccountEntity: Storable, Equatable, Sendable {
    /// The identifier.
    package var id: String
    /// The e-mail address.
    package var email: String?
    /// The region.
    package var region: String
    /// The handle.
    package var handle: String
    /// A field no index covers.
    package var name: String

    /// The unique e-mail address, and the unique handle within a region.
    package static var indexes: [StorageIndex] {
        [StorageIndex("email", unique: true), StorageIndex("region", "handle", unique: true)]
    }
}

/// The DAO of ``FixtureAccount``.
package typealias FixtureAccountDao = BaseDao<FixtureAccount, FixtureAccountEntity>
