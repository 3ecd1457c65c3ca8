import DAOKit

/// An entity with `String` ids, for the tests and their writer child process: the same name and
/// fields as the note the contract checks of `DAOKitTesting` store, which keeps its fixtures to
/// itself (they are no API).
public struct FixtureNoteEntity: Storable, Equatable, Sendable {
    /// The identifier.
    public var id: String
    /// The text.
    public var body: String

    /// Creates a note.
    public init(id: String, body: String) {
        self.id = id
        self.body = body
    }
}
