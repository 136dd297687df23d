/// How a stack's members run: in this process (`InProcessRunner`, for the suite and most tests) or as the
/// built executables (the end-to-end tests' runner). The stack decides what to start with which settings; the
/// runner only starts and stops.
public protocol StackRunner: Sendable {
    /// Writes the public half of the portal's signing key (as the portal's settings name it) to `publicKeyFile`,
    /// before verification starts (it must trust the key), and answers verification's entry for it:
    /// `path|issuer|audience`.
    func preparePortalKey(variables: [String: String], publicKeyFile: String) async throws -> String

    /// Starts `member` with `variables` and returns once it answers, with the port of each of its listeners by
    /// name (`StackMember.listeners`).
    func start(_ member: StackMember, variables: [String: String]) async throws -> [String: Int]

    /// Stops `member` gracefully: requests in flight finish.
    func stop(_ member: StackMember) async
}
