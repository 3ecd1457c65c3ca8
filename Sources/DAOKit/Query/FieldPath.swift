/// The path of a stored field: the coding keys from the entity down to the field, such as
/// `["author", "name"]` for the `name` of the value stored under `author`.
///
/// Write it as a string literal with dots between the keys: `"author.name"`. A key that itself
/// contains a dot needs ``init(_:)`` with the keys one by one.
public struct FieldPath: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The coding keys, outermost first. Never empty.
    public let keys: [String]

    /// A path from its coding keys, outermost first.
    /// - Precondition: `keys` is not empty.
    public init(_ keys: [String]) {
        precondition(!keys.isEmpty, "A FieldPath needs at least one coding key")
        self.keys = keys
    }

    /// A path written with dots between the keys: `"author.name"`.
    public init(stringLiteral value: String) {
        self.init(value.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// The keys joined with dots.
    public var description: String { keys.joined(separator: ".") }
}
