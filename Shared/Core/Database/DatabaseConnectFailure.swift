import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// Why a connection to PostgreSQL failed, in an operator's words, and whether waiting can help.
///
/// A refused connection, a name that does not resolve yet or a server still starting are what a database started
/// beside the service (docker compose, a rolling restart) looks like for a while: start-up retries those until
/// `DATABASE_TIMEOUT`. A refused password, a missing role or database, or a TLS mismatch will not mend themselves:
/// start-up stops at the first one. Either way the last line says which it was, never a pool's internal state.
public struct DatabaseConnectFailure: Error, CustomStringConvertible, Sendable {
    public let cause: String
    /// Whether waiting may help (the server is not there yet), rather than the configuration being wrong.
    public let isTransient: Bool

    public var description: String { cause }

    /// Classifies an error of a connection attempt to `host:port` as `user` into `database`.
    public init(_ error: any Error, host: String, port: Int, user: String, database: String?) {
        let place = "\(host):\(port)"
        if let error = error as? PSQLError {
            if let state = error.serverInfo?[.sqlState] {
                let said = error.serverInfo?[.message].map { ": the server said \"\($0)\"" } ?? ""
                switch state {
                case "28P01", "28000":
                    self.init(cause: "authentication failed for user \(user) at \(place)\(said) (check the user and password of DATABASE_URL)", isTransient: false)
                case "3D000":
                    self.init(cause: "database \(database ?? user) does not exist at \(place)\(said)", isTransient: false)
                case "57P03", "53300":
                    self.init(cause: "the server at \(place) does not accept connections yet\(said)", isTransient: true)
                default:
                    self.init(cause: "the server at \(place) refused the connection (SQLSTATE \(state))\(said)", isTransient: false)
                }
                return
            }
            switch error.code {
            case .sslUnsupported:
                self.init(cause: "the server at \(place) does not offer TLS, which DATABASE_URL requires (sslmode)", isTransient: false)
                return
            case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
                self.init(cause: "TLS with the server at \(place) failed", isTransient: false)
                return
            case .authMechanismRequiresPassword:
                self.init(cause: "the server at \(place) asks for a password, and DATABASE_URL has none", isTransient: false)
                return
            case .unsupportedAuthMechanism, .saslError:
                self.init(cause: "authentication failed for user \(user) at \(place) (an authentication method or password the server does not accept)", isTransient: false)
                return
            default:
                if let underlying = error.underlying {
                    self.init(underlying, host: host, port: port, user: user, database: database)
                    return
                }
            }
        }
        if error is NIOSSLError {
            self.init(cause: "TLS with the server at \(place) failed (\(type(of: error)))", isTransient: false)
            return
        }
        if let error = error as? NIOConnectionError {
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
                self.init(cause: "the host name \(host) does not resolve", isTransient: true)
                return
            }
            if let first = error.connectionErrors.first?.error {
                self.init(first, host: host, port: port, user: user, database: database)
                return
            }
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED:
                self.init(cause: "connection refused at \(place): nothing listens there (is PostgreSQL running, on that host and port?)", isTransient: true)
            case ETIMEDOUT, EHOSTUNREACH, ENETUNREACH:
                self.init(cause: "\(place) cannot be reached (\(String(cString: strerror(error.errnoCode))))", isTransient: true)
            default:
                self.init(cause: "connecting to \(place) failed: \(String(cString: strerror(error.errnoCode)))", isTransient: true)
            }
            return
        }
        if error is SocketAddressError {
            self.init(cause: "the host name \(host) does not resolve", isTransient: true)
            return
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            self.init(cause: "\(place) did not answer the connection in time", isTransient: true)
            return
        }
        self.init(cause: "connecting to \(place) failed (\(type(of: error)))", isTransient: true)
    }

    public init(cause: String, isTransient: Bool) {
        self.cause = cause
        self.isTransient = isTransient
    }
}
