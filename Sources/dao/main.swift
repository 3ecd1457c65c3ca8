// The `dao` executable: everything lives in DAOCommandLine, where the tests can reach it.
import DAOCommandLine
import Foundation

var output = StandardStream.output
var errors = StandardStream.error
exit(DAOCommand.run(arguments: Array(CommandLine.arguments.dropFirst()), stdout: &output, stderr: &errors))
