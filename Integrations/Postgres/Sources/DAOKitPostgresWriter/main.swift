// A child process for DAOKitPostgres's tests: another instance of an app writing to the same
// database. It reads the server from the environment `Scripts/with-throwaway-server.sh` sets.
//
//   DAOKitPostgresWriter <schema> writes <process> <count>   persist <count> notes, one per call
//   DAOKitPostgresWriter <schema> create <count>             try to create race-0..<count>
//   DAOKitPostgresWriter <schema> persist <id> <body>        persist one note
//   DAOKitPostgresWriter <schema> restart <batches>          write batches across a server restart
//   DAOKitPostgresWriter <schema> observe-restart <notes>    observe two writers across a server stop
//
// It prints one result line (`done …`) and exits 0, or prints the error and exits 1.
import DAOKit
import DAOKitPostgres
import DAOKitPostgresTestSupport
import Foundation

func environment(_ name: String) -> String {
    guard let value = ProcessInfo.processInfo.environment[name] else {
        FileHandle.standardError.write(Data("\(name) is not set: run through Scripts/with-throwaway-server.sh\n".utf8))
        exit(2)
    }
    return value
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(
        Data("usage: DAOKitPostgresWriter <schema> writes|create|persist|restart|observe-restart …\n".utf8))
    exit(2)
}
let configuration = PostgresStorageContext.Configuration(
    host: environment("DAOKIT_PG_HOST"), port: Int(environment("DAOKIT_PG_PORT"))!,
    username: environment("DAOKIT_PG_USER"),
    password: environment("DAOKIT_PG_PASSWORD"), database: environment("DAOKIT_PG_DATABASE"), schema: arguments[1],
    maximumConnections: 2, connectTimeout: .seconds(5))
let context = PostgresStorageContext(configuration: configuration)
let notes = BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: context)

do {
    switch arguments[2] {
    case "writes":
        let process = arguments[3]
        for index in 0..<Int(arguments[4])! {
            try notes.persist(FixtureNoteEntity(id: "p\(process)-\(index)", body: "written by \(process)"))
        }
        print("done")
    case "create":
        var created = 0
        var duplicates = 0
        for index in 0..<Int(arguments[3])! {
            do {
                try notes.create(FixtureNoteEntity(id: "race-\(index)", body: "created by \(getpid())"))
                created += 1
            } catch let error as StorageError where error.kind == .duplicateID {
                duplicates += 1
            }
        }
        print("done created=\(created) duplicates=\(duplicates)")
    case "persist":
        try notes.persist(FixtureNoteEntity(id: arguments[3], body: arguments[4]))
        print("done")
    case "restart":
        print(try RestartWorkload(context: context, batches: Int(arguments[3])!).run())
    case "observe-restart":
        var shortTimeout = configuration
        shortTimeout.connectTimeout = .seconds(2)
        print(try ObservationRestartWorkload(configuration: shortTimeout, notes: Int(arguments[3])!).run())
    default:
        FileHandle.standardError.write(Data("unknown command \(arguments[2])\n".utf8))
        exit(2)
    }
} catch {
    print("error \(error)")
    exit(1)
}
