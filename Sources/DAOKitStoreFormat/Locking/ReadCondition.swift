import DAOKitInternals

/// What readers may rely on while they hold the shared lock. The reader that takes the lock
/// decides it from the journal (`FileStorageContext.readCondition()`), and
/// every thread reading under the same lock gets the same answer.
package enum ReadCondition: Sendable {
    /// Every record reads as it is: no batch is unfinished, or a torn journal says that the one
    /// that stopped touched no record.
    case consistent
    /// A batch stopped half way and this process cannot roll it back now (`cause`: no write
    /// access, or no free space): the records of the journal's entity directory may be
    /// half-written, so readers take each file the journal names from the journal (what it held
    /// before the batch) and every other file as it is. The others entity types are sound.
    case unfinishedBatch(Journal, cause: FileSystemError)
}
