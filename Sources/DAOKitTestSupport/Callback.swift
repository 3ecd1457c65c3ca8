import DAOKit

/// Code an entity runs from its `id` getter: a test's way to call the store from inside a call.
package final class Callback: @unchecked Sendable {
    private let body: () -> Void
    package init(_ body: @escaping () -> Void) { self.body = body }
    package func run() { body() }
}

/// A note whose `id` getter runs a callback first. The callback is not stored.
package struct CallbackNote: Storable, Equatable {
    package var key: String
    package var text: String
    package var callback: Callback?

    enum CodingKeys: String, CodingKey { case key, text }

    package init(key: String, text: String, callback: Callback? = nil) {
        self.key = key
        self.text = text
        self.callback = callback
    }

    package var id: String {
        callback?.run()
        return key
    }

    package static func == (lhs: CallbackNote, rhs: CallbackNote) -> Bool { lhs.key == rhs.key && lhs.text == rhs.text }
}
