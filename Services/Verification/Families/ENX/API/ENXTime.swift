import Foundation

/// Times as the reference writes them for people: Go's RFC 1123 layout with the zone `UTC`
/// (`Sun, 22 Nov 2020 11:35:00 UTC`), always in English.
enum ENXTime {
    static func rfc1123(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
