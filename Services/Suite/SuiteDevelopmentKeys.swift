import ExposureCore
import ExposureStack
import Foundation
import Portal

/// `exposure-suite development-keys`: the stack's development keys of the portal, submission and verification in one folder, with
/// the public half of the portal's key that verification trusts (`JWT_PUBLIC_KEY_FILES`).
enum SuiteDevelopmentKeys {
    /// Makes the keys where missing; answers the setting that names each file, and the public key's file.
    static func create(in directory: String) throws -> (variables: [String: String], portalPublicKey: String) {
        try StackDevelopmentKeys.create(for: [.portal, .submission, .verification], in: directory)
        let variables = [StackMember.portal, .submission, .verification].reduce(into: [String: String]()) { variables, member in
            variables.merge(StackDevelopmentKeys.variables(for: member, in: directory)) { $1 }
        }
        let publicKeyFile = (directory as NSString).appendingPathComponent(StackDevelopmentKeys.portalSigningPublicKey)
        let key = try PortalSigningKey.read(variables["PORTAL_SIGNING_KEY_FILE"]!)
        // Public: verification, another user in a deployment, reads it.
        try Data(key.publicKeyPEM.utf8).write(to: URL(fileURLWithPath: publicKeyFile), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: publicKeyFile)
        return (variables, publicKeyFile)
    }
}
