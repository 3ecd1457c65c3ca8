// The `dao` executable: everything lives in DAOCommandLine, where the tests can reach it.
import DAOCommandLine
import Foundation

// A reader that goes away (`dao dump … | head`) must end the output, not kill the process with
// SIGPIPE: with the signal ignored, the failed write is dropped as Console documents.
signal(SIGPIPE, SIG_IGN)

var output = StandardStream.output
var errors = StandardStream.error
exit(DAOCommand.run(arguments: Array(CommandLine.arguments.dropFirst()), stdout: &output, stderr: &errors))
