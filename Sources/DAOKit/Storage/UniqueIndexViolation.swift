/// What a ``StorageError`` of code ``StorageError/Code/uniqueViolation`` is about: the unique
/// index and the record that already holds the values the refused record would hold. The refused
/// record's key is the error's ``StorageError/key``.
///
/// ```swift
/// do {
///     try users.create(User(id: "u2", email: "ada@example.com"))
/// } catch let error as StorageError where error.code == .uniqueViolation {
///     print(error.uniqueIndexViolation?.existingKey)  // "u1"
/// }
/// ```
///
/// It carries no field values: they are often personal data (an e-mail address), and errors end
/// up in logs.
public struct UniqueIndexViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// The unique index whose fields hold equal values in both records.
    public let index: StorageIndex
    /// The storage key of the record that holds the values already: a stored one, or an earlier
    /// one in the same batch. `nil` only when a database server reported the violation and the
    /// other record was gone by the time the context looked it up.
    public let existingKey: String?

    /// Describes a violation of `index` by a record whose values `existingKey` holds already.
    public init(index: StorageIndex, existingKey: String?) {
        self.index = index
        self.existingKey = existingKey
    }

    /// `(email) already held by "u1"`.
    public var description: String {
        let fields = "(" + index.fields.map(\.description).joined(separator: ", ") + ")"
        guard let existingKey else { return fields + " already held by another record" }
        return fields + " already held by " + existingKey.debugDescription
    }

    /// The error a context throws when the record under `key` would break `index`, whose values
    /// the record under `existingKey` holds.
    package static func error(entityName: String, key: String, index: StorageIndex, existingKey: String?)
        -> StorageError
    {
        let violation = UniqueIndexViolation(index: index, existingKey: existingKey)
        return StorageError(
            .uniqueViolation(violation.description), entityName: entityName, key: key, underlyingError: violation)
    }
}
