import Foundation
import Testing

/// A server restart in the middle of a workload. It stops its server, so it runs on a server of
/// its own: the writer child runs through `with-throwaway-server.sh`, which starts one for it,
/// and so the other suites, which share the test run's server, keep theirs.
@Suite("Postgres restart")
struct PostgresRestartTests {
    @Test func batchesAcrossARestartAreWholeOrAbsentAndWritingResumes() throws {
        let writer = try WriterProcess.onAServerOfItsOwn(["public", "restart", "40"])
        let result = writer.finish()
        #expect(result.succeeded, "\(result.line)")
        let values = WriterProcess.values(in: result.line)
        #expect(values["committed"] == 40, "\(result.line)")
        #expect((values["afterRestart"] ?? 0) > 0, "the context reconnected after the restart: \(result.line)")
        #expect(values["torn"] == 0, "no batch half applied: \(result.line)")
        #expect(values["lost"] == 0, "every batch whose save returned is stored: \(result.line)")
    }

    @Test func observationsOutliveAServerStopLongerThanTheConnectTimeoutAndConvergeOnTheFinalCount() throws {
        let run = try ObservedRestart.outcome.get()
        #expect(run.succeeded, "\(run.lines.joined(separator: "\n"))")
        let values = WriterProcess.values(in: run.lines.last ?? "")
        #expect(values["final"] == ObservedRestart.notes, "\(run.lines.last ?? "no result")")
        #expect(values["ended"] == 0, "no observation ended: \(run.lines.filter { $0.hasPrefix("ended") })")
        #expect(
            values["converged"] == values["observers"] && values["observers"] == 3, "\(run.lines.last ?? "no result")")
        #expect(
            (values["writeFailures"] ?? 0) > 0, "the writers saw the server stopped: \(run.lines.last ?? "no result")")
    }

    @Test func callsWhileTheServerIsStoppedAreIOErrorsNamingTheServerAndTheCause() throws {
        let run = try ObservedRestart.outcome.get()
        #expect(run.succeeded, "\(run.lines.joined(separator: "\n"))")
        let values = WriterProcess.values(in: run.lines.last ?? "")
        #expect(values["notIO"] == 0 && values["unnamedServer"] == 0, "\(run.lines.last ?? "no result")")
        let failures = run.lines.filter { $0.hasPrefix("error ") || $0.hasPrefix("stopped ") }
        let stopped = run.lines.filter { $0.hasPrefix("stopped ") }
        #expect(stopped.count == 2, "\(run.lines)")
        for line in failures {
            #expect(!line.contains("context was closed"), "the contexts were open: \(line)")
            #expect(!line.contains("Generic description"), "postgres-nio's redacted text: \(line)")
            #expect(line.contains("postgres://"), "names the server: \(line)")
        }
        // Calls made while the server was stopped say why there is no connection.
        for line in stopped {
            #expect(line.contains("refused") || line.contains("shutting down"), "\(line)")
        }
    }
}

/// One run of the observation-restart workload, shared by the tests that read it.
enum ObservedRestart {
    static let notes = 400
    static let outcome = Result { () throws -> (lines: [String], succeeded: Bool) in
        try WriterProcess.onAServerOfItsOwn(["public", "observe-restart", "\(notes)"]).finishWithEveryLine()
    }
}

extension WriterProcess {
    /// The writer with `arguments`, started through `with-throwaway-server.sh` on a server of its own.
    static func onAServerOfItsOwn(_ arguments: [String]) throws -> WriterProcess {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Scripts/with-throwaway-server.sh")
        _ = try TestServer.variable("DAOKIT_PG_HOST")  // run through the script, as every test here
        return try running(script: script, arguments: [executable().path] + arguments)
    }
}
