import Foundation

/// How long a claimed server key pair serves uploads, and how many keys it may bring in (covidshield.md, "Keypair").
public enum CovidShieldKeyPairPolicy {
    /// The most keys a key pair may bring in over its life: 14 at the first upload and one for each later day. The
    /// reference counts them down from 28 whatever the day, and so does this; the lifetime below ends the pair anyway.
    public static let keyBudget = 28
    /// Days after the code's issue day (UTC) that the pair stays usable.
    public static let lifetimeDays: Int64 = 15

    /// UTC midnight that starts the day of `issuedAt` (unix seconds), plus 15 days: when the pair dies. The seed
    /// let it die on day T+14; the sheet's "do better" keeps it one day longer so that the app's last daily key
    /// (uploaded the day after it rolls) still has a pair to go to.
    public static func validUntil(issuedAt: Int64) -> Int64 {
        let day = Int64(86_400)
        let midnight = issuedAt >= 0 ? issuedAt / day * day : (issuedAt - day + 1) / day * day
        return midnight + lifetimeDays * day
    }
}
