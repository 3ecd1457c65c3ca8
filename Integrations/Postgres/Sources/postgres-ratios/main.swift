// BaseDao over PostgresStorageContext against the same work written by hand with postgres-nio,
// on one throwaway server, in interleaved rounds (so machine noise hits both alike):
//
//   Integrations/Postgres/Scripts/with-throwaway-server.sh swift run -c release --package-path Integrations/Postgres postgres-ratios
//
// Prints `RATIO postgres.<op> dao/raw=<x>` (medians) for a batch insert of 10,000 messages, the
// screen query (one dialog's newest 50 of 10,000 messages in 100 dialogs) and reading all 10,000.
//
// With `PROFILE=dao` or `PROFILE=raw` it only reads all 10,000 messages, 30 times, one way
// (`PROFILE=dao-screen`, `raw-screen`: 3,000 screen queries), so that a profiler sees that path
// alone (`perf record -g` around the command; the server is another process).
import DAOKit
import DAOKitPostgres
import Foundation
import Logging
import PostgresNIO

func environment(_ name: String) -> String {
    guard let value = ProcessInfo.processInfo.environment[name] else {
        FileHandle.standardError.write(Data("\(name) is not set: run through Scripts/with-throwaway-server.sh\n".utf8))
        exit(2)
    }
    return value
}

let configuration = PostgresStorageContext.Configuration(
    host: environment("DAOKIT_PG_HOST"), port: Int(environment("DAOKIT_PG_PORT"))!,
    username: environment("DAOKIT_PG_USER"),
    password: environment("DAOKIT_PG_PASSWORD"), database: environment("DAOKIT_PG_DATABASE"), schema: "bench")
let context = PostgresStorageContext(configuration: configuration)
let dao = BaseDao<Message, MessageEntity>(context: context)
var rawConfiguration = PostgresClient.Configuration(
    host: configuration.host, port: configuration.port, username: configuration.username,
    password: configuration.password, database: configuration.database, tls: .disable)
rawConfiguration.options.maximumConnections = 4
let rawClient = PostgresClient(configuration: rawConfiguration, backgroundLogger: HandWritten.logger)
let rawRun = Task { await rawClient.run() }
let raw = HandWritten(client: rawClient, table: "raw_messages")

/// Seconds `body` takes.
func time(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = start.duration(to: .now)
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let messages = makeMessages(10_000)
try await raw.createTable()

/// Reads everything 30 times, or runs 3,000 screen queries (`screen` true), through `side` (`dao`
/// or `raw`) alone.
func profile(_ side: String, screen: Bool) async throws {
    try await dao.erase()
    try await dao.persist(messages)
    try await raw.replaceAll(messages)
    for round in 0..<(screen ? 3_000 : 30) {
        let id = "dialog-\(round % 100)"
        let count: Int
        switch (side, screen) {
        case ("dao", false): count = try await dao.read().count
        case ("dao", true):
            count = try await dao.read(
                where: #Predicate<Message> { $0.dialogID == id },
                sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: 50
            ).count
        case (_, false): count = try await raw.readAll().count
        case (_, true): count = try await raw.screen(dialog: id).count
        }
        precondition(count == (screen ? 50 : 10_000))
    }
}

if let side = ProcessInfo.processInfo.environment["PROFILE"] {
    try await profile(side.replacingOccurrences(of: "-screen", with: ""), screen: side.hasSuffix("-screen"))
    rawRun.cancel()
    context.close()
    exit(0)
}
let rounds = Int(ProcessInfo.processInfo.environment["ROUNDS"] ?? "7")!
var samples: [String: (dao: [Double], raw: [Double])] = [:]
@MainActor func record(_ operation: String, dao: Double, raw: Double) {
    samples[operation, default: ([], [])].dao.append(dao)
    samples[operation, default: ([], [])].raw.append(raw)
}

for round in 0...rounds {
    let daoInsert = try await time {
        try await dao.erase()
        try await dao.persist(messages)
    }
    let rawInsert = try await time { try await raw.replaceAll(messages) }
    // 100 screen queries per round, over every dialog.
    let daoScreen =
        try await time {
            for dialog in 0..<100 {
                let id = "dialog-\(dialog)"
                let page = try await dao.read(
                    where: #Predicate<Message> { $0.dialogID == id },
                    sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: 50)
                precondition(page.count == 50)
            }
        } / 100
    let rawScreen =
        try await time {
            for dialog in 0..<100 {
                let page = try await raw.screen(dialog: "dialog-\(dialog)")
                precondition(page.count == 50)
            }
        } / 100
    let daoAll = try await time {
        let all = try await dao.read()
        precondition(all.count == 10_000)
    }
    let rawAll = try await time {
        let all = try await raw.readAll()
        precondition(all.count == 10_000)
    }
    if round == 0 { continue }  // warm-up: connections, proofs, plans
    record("batchInsert10k", dao: daoInsert, raw: rawInsert)
    record("screen", dao: daoScreen, raw: rawScreen)
    record("readAll10k", dao: daoAll, raw: rawAll)
}

for operation in ["batchInsert10k", "screen", "readAll10k"] {
    let (daoTimes, rawTimes) = samples[operation]!
    let ratios = zip(daoTimes, rawTimes).map { $0 / $1 }
    let daoMilliseconds = String(format: "%.3f", median(daoTimes) * 1000)
    let rawMilliseconds = String(format: "%.3f", median(rawTimes) * 1000)
    print("\(operation): dao \(daoMilliseconds) ms, raw \(rawMilliseconds) ms (medians of \(daoTimes.count) rounds)")
    print("RATIO postgres.\(operation) dao/raw=\(String(format: "%.2f", median(ratios)))")
}
rawRun.cancel()
context.close()
