/// The texts of `dao --help` and `dao <command> --help`, kept together so that they read as one
/// manual and stay consistent with each other.
enum HelpText {
    static let overview = """
        dao — watch DAOKit work, and look inside a DAOKit file store.

        Usage: dao <command> [arguments]

        Commands:
          demo [DIR]              Build a small messenger's data with BaseDao in a file store, query
                                  and change it, and compare the mapper's speed with the alternatives
          inspect DIR             Entity types, record counts, sizes, format version, leftovers
          dump DIR ENTITY [KEY]   Records as JSON, keyed by their real ids
          verify DIR              Check every record and file name; exit status 1 when anything is wrong

        DIR is the directory of a FileStorageContext, or the database file of an SQLiteStorageContext
        (told apart by itself; 'dao demo --sqlite [FILE]' builds the demo in one). inspect, dump and
        verify only read it: they do not recover a crashed batch, remove leftovers or create the lock file.

        Exit status: 0 done, 1 problems found (verify) or a command failed part way, 2 wrong
        arguments, a missing directory or an unknown entity.

        Run 'dao <command> --help' for more about a command.
        """

    static let demo = """
        Usage: dao demo [DIR]

        Runs DAOKit's messenger example end to end: users, dialogs and messages stored through BaseDao
        in a FileStorageContext; queries (the unread messages of a dialog by date, the pinned dialogs,
        counts); updates and erases; the errors DAOKit reports. It ends with a short measurement of
        EntityMapper against a hand-written translator and a JSON round trip on the same messages.

        DIR is where the store is written; it must be new, empty, or a store an earlier demo wrote
        (whose demo data is replaced). Without DIR the demo uses a fresh temporary directory and prints
        its path, so that you can look inside with 'dao inspect', 'dao dump' and 'dao verify'.
        """

    static let inspect = """
        Usage: dao inspect DIR

        Describes the file store in DIR: its record format and format version, each entity type with
        its directory, record count and size, whether a batch was left unfinished in the journal, and
        any temporary files or other leftovers a crash left behind. Only reads the directory.
        """

    static let dump = """
        Usage: dao dump DIR ENTITY [KEY]

        Prints the records of ENTITY (its entity name, such as Message, or its directory name) as one
        pretty-printed JSON object whose member names are the records' real keys, read from inside the
        records rather than guessed from file names. With KEY, only that record. Values appear as they
        are stored: dates as seconds since 2001-01-01, data as Base64.

        A record that cannot be read is left out with one line on standard error, and so is a note when
        an unfinished batch in the journal touches ENTITY (the next open of the store would undo it);
        the exit status is then 1. An unknown ENTITY or KEY is exit status 2.
        """

    static let verify = """
        Usage: dao verify DIR

        Checks the file store in DIR without changing it: every record parses in the documented format
        with a supported format version, every file name is the encoding of the key inside its record,
        no batch is left unfinished in the journal, and no temporary file, trash directory or foreign
        file is lying around. Prints one line per problem ('PATH: what is wrong'), then a summary.

        It checks each record's envelope, not its entity: dao cannot know your Swift types, so a record
        whose entity no longer decodes (a field whose type changed, an enum case your app does not know)
        passes here, and your app reports it as a decodingFailed StorageError.

        Exit status: 0 when the store is sound, 1 when a problem was found, 2 when DIR is not a store.
        """

    /// The help of `command`, or `nil` when there is no such command.
    static func forCommand(_ command: String) -> String? {
        switch command {
        case "demo": return demo
        case "inspect": return inspect
        case "dump": return dump
        case "verify": return verify
        default: return nil
        }
    }
}
