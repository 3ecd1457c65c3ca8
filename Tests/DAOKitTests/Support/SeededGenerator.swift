import DAOKitTesting

/// The tests' deterministic generator is the one DAOKitTesting's query differential uses.
typealias SeededGenerator = DAOKitTesting.SeededGenerator
