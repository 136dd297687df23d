import ExposureCore
import Foundation
import OpenAPIRuntime
import SubmissionDomain

extension CovidShieldHandlers {
    func retrieveDay(_ input: Operations.retrieveDay.Input) async throws -> Operations.retrieveDay.Output {
        let window: CovidShieldRetrievalWindow
        do {
            window = try retrieval.day(date: input.path.date, hmac: input.path.hmac, now: environment.clock.now())
        } catch {
            let body = Components.Responses.Text(body: .text_plain_charset_utf_hyphen_8(HTTPBody(error.text)))
            switch error.status {
            case 400: return .badRequest(body)
            case 401: return .unauthorized(body)
            case 410: return .gone(body)
            default: return .notFound(body)
            }
        }
        return .ok(try await stream(window))
    }

    func retrieveHour(_ input: Operations.retrieveHour.Input) async throws -> Operations.retrieveHour.Output {
        let window: CovidShieldRetrievalWindow
        do {
            window = try retrieval.hour(date: input.path.date, hour: input.path.hour, hmac: input.path.hmac, now: environment.clock.now())
        } catch {
            let body = Components.Responses.Text(body: .text_plain_charset_utf_hyphen_8(HTTPBody(error.text)))
            switch error.status {
            case 400: return .badRequest(body)
            case 401: return .unauthorized(body)
            default: return .notFound(body)
            }
        }
        return .ok(try await stream(window))
    }

    /// The window's keys of the configured regions, and the home country's CWA keys under the region the operator
    /// named for them, as the length-prefixed File stream. A failure to read them is a 500 (the JSON error body:
    /// the app reads nothing but the status of a failed retrieval).
    private func stream(_ window: CovidShieldRetrievalWindow) async throws -> Components.Responses.FileStream {
        var origins = configuration.regions
        if configuration.cwaKeysRegion != nil, !origins.contains(homeCountry) { origins.append(homeCountry) }
        let found = try await keys.keys(submittedIn: window, origins: origins)
        let labelled = found.map { key in
            let region = key.originCountry == homeCountry ? configuration.cwaKeysRegion ?? key.originCountry : key.originCountry
            return (region: region, key: key)
        }
        // Cache-Control: `CovidShieldAnswerHeaders`.
        return .init(body: .application_x_hyphen_protobuf_delimited__true(HTTPBody(CovidShieldFileStream.encode(labelled, window: window))))
    }
}
