import Foundation

/// The durable record that a `FileStorageContext.reset()` has begun, kept in `.journal` in place
/// of a batch's undo journal.
///
/// A reset renames every entity directory away, one `rename` each, which is not atomic as a
/// whole. So it first writes this intent to `.journal` and `fsync`s it: from then on the reset
/// has committed, and whoever next takes the lock (a reader, a writer, an open; in any process)
/// finds a non-empty journal, as after a crashed batch, and rolls the reset *forward* — renames
/// every remaining entity directory away — before reading. A crash before the intent is whole
/// leaves a torn journal, which is discarded: no directory had been touched yet.
///
/// Here, in the store format, so that `dao` recognizes it too.
///
/// The intent is 16 fixed bytes; a torn write cannot produce them, and a batch journal starts
/// with another magic (`DAOKJRN1`), so the two are never confused.
package enum ResetIntent {
    package static let bytes = Data("DAOKRST1RESETALL".utf8)

    package static func matches(_ data: Data) -> Bool {
        data == bytes
    }
}
