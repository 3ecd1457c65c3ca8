/// The names of the file store's own files, next to the entity directories:
///
/// ```
/// <directory>/.lock                      advisory lock; created when the store is first opened
/// <directory>/.journal                   undo journal of the running batch; empty between batches
/// <directory>/.changes                   which records writes changed, for query caches (ChangeLog)
/// <directory>/.changes.new               the empty log a writer renames over a full one
/// <directory>/.trash-<hex>/              an entity directory deleteAll renamed away (crash leftover)
/// <directory>/<entity>/<key>.json|plist  one record per file (see FileNameCodec)
/// <directory>/<entity>/.tmp-<hex>        a write's temporary file (crash leftover)
/// ```
///
/// Every one starts with `.`, which no encoded entity name or key does, so they can never collide
/// with records. Shared with the `dao` tool, which reads stores without opening them.
package enum FileStoreLayout {
    /// The lock file's name in the store's directory.
    package static let lockFileName = ".lock"
    /// The journal's name in the store's directory (see ``Journal`` for its layout).
    package static let journalFileName = ".journal"
    /// The change log's name in the store's directory (see ``ChangeLog``).
    package static let changeLogFileName = ".changes"
    /// Appended to ``changeLogFileName`` for the empty log a writer renames over a full one.
    package static let changeLogReplacementSuffix = ".new"
    /// The start of a temporary file's name inside an entity directory: a write that has not
    /// renamed it into place yet, or a crashed one that recovery removes.
    package static let temporaryFilePrefix = ".tmp-"
    /// The start of the name of an entity directory that `deleteAll` renamed away and is emptying,
    /// in the store's directory; recovery removes any that a crash left.
    package static let trashDirectoryPrefix = ".trash-"
    /// The extension of JSON record files, without the dot.
    package static let jsonFileExtension = "json"
    /// The extension of property-list record files, without the dot.
    package static let propertyListFileExtension = "plist"
    /// The extension of record files of each format: JSON, then property lists.
    package static let recordFileExtensions = [jsonFileExtension, propertyListFileExtension]
}
