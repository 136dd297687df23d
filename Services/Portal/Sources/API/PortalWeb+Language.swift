import Hummingbird
import PortalDomain

/// The language switcher: `GET /language?set=<code>&back=<path>` remembers the choice in a cookie (a display
/// preference, no credential: a GET is enough, and a forged one only changes the language) and returns to the page.
extension PortalWeb {
    func chooseLanguage(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        guard let chosen = query["set"].flatMap({ Language(rawValue: String($0)) }) else { throw PortalError.badRequest }
        var response = redirect(Self.localPath(query["back"].map(String.init)))
        response.setCookie(cookies.language(chosen.rawValue))
        return response
    }

    /// `back` when it is a path of this site, else the start page: the switcher never sends anyone elsewhere
    /// (`//host`, `/\host` and absolute URLs are refused).
    static func localPath(_ back: String?) -> String {
        guard let back, back.hasPrefix("/"), !back.hasPrefix("//"), !back.contains("\\"),
              back.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return "/" }
        return back
    }
}
