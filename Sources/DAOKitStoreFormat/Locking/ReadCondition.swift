import DAOKitInternals

/// What readers may rely on while they hold the shared lock. The reader that takes the lock
/// decides it from the journal (`FileStorageContext.readCondition()`), and
/// every thread reading under the same lock gets the same answer.
package enum ReadCondition: Sendable {
    /// Every record reads as it is: no batch is unfinished, or a torn journal says that the one
    /// that stopped touched no record.
    case consistent
    /// A batch on the entity directory `directoryName` stopped half way and this process cannot
    /// roll it back (`cause`): that entity's records may be half-written; the others are sound.
    case unfinishedBatch(directoryName: String, cause: FileSystemError)
}
