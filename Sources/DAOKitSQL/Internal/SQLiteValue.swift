import DAOKit
import Foundation

/// A value as SQLite stores it in a column: one of its five storage classes.
package enum SQLiteValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
