import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import VerificationDomain

/// The ProteGO Safe family's issuer endpoints: `generateCode` and `generateCodesBatch`, Firebase callable functions
/// (`{"data": …}` in, `{"result": …}` out), the token in `api-token` (openapi/verification.yaml, tag `issuer`).
extension IssuerAPI {
    static let generateCode = "/generateCode"
    static let generateCodesBatch = "/generateCodesBatch"
    /// A callable's body is a few dozen bytes; anything near this is no request of an issuer.
    static let maxCallableBody = 16 * 1024

    /// `POST /generateCode` and `POST /generateCodesBatch`, Firebase callable functions.
    func registerProteGO(on router: Router<BasicRequestContext>) {
        router.post(RouterPath(Self.generateCode)) { request, _ in
            // `data` is not read: every call gets one PIN of the standard lifetime.
            await self.callable(request, name: "generateCode") { issuer, _ in
                try await issue(1, by: issuer, lifetime: lifetimes.proteGOCode)[0]
            }
        }
        router.post(RouterPath(Self.generateCodesBatch)) { request, _ in
            await self.callable(request, name: "generateCodesBatch") { issuer, body in
                let arguments = (try? JSONDecoder().decode(BatchCall.self, from: body))?.data
                guard let count = arguments?.numberOfCodes, ProteGOBatch.isValidNumberOfCodes(count) else {
                    throw CallableError.invalidArgument(ProteGOBatch.numberOfCodesMessage)
                }
                guard let duration = arguments?.duration, ProteGOBatch.isValidDuration(duration) else {
                    throw CallableError.invalidArgument(ProteGOBatch.durationMessage)
                }
                return try await issue(count, by: issuer, lifetime: .seconds(duration))
            }
        }
    }

    /// A refusal of a callable function, as Firebase encodes it: `{"error": {"message", "status"}}`.
    enum CallableError: Error {
        case invalidArgument(String)
        case permissionDenied
        /// The issuer's limit is reached: Firebase's `resource-exhausted`, which it answers with 429.
        case resourceExhausted

        var status: HTTPResponse.Status {
            switch self {
            case .invalidArgument: .badRequest
            case .permissionDenied: .forbidden
            case .resourceExhausted: .tooManyRequests
            }
        }

        var body: [String: String] {
            switch self {
            case .invalidArgument(let message): ["message": message, "status": "INVALID_ARGUMENT"]
            case .permissionDenied: ["message": "Permission denied.", "status": "PERMISSION_DENIED"]
            case .resourceExhausted: ["message": "Too many codes issued; try again later.", "status": "RESOURCE_EXHAUSTED"]
            }
        }

        /// What Firebase answers to a request that is no call at all.
        static let badRequest = CallableError.invalidArgument("Bad Request")
    }

    /// `generateCodesBatch`'s `data`: each argument read on its own, so that a missing or mistyped one (a string, a
    /// boolean, 1.5) is that argument's refusal.
    struct BatchCall: Decodable {
        struct Arguments: Decodable {
            var numberOfCodes: Int?
            var duration: Int?

            enum CodingKeys: String, CodingKey { case numberOfCodes, duration }

            init(from decoder: any Decoder) throws {
                let container = try? decoder.container(keyedBy: CodingKeys.self)
                numberOfCodes = try? container?.decodeIfPresent(Int.self, forKey: .numberOfCodes)
                duration = try? container?.decodeIfPresent(Int.self, forKey: .duration)
            }
        }

        var data: Arguments?
    }

    /// Runs a callable function as Firebase does: a POST of `application/json` whose body is an object holding `data`
    /// and nothing else (400 INVALID_ARGUMENT otherwise), then the issuer's `api-token` (403 PERMISSION_DENIED unless
    /// it names a ProteGO issuer), then `work` with the issuer and the body; its value is answered as `result`.
    func callable(_ request: Request, name: String, _ work: (AuthorizedIssuer, Data) async throws -> any Sendable) async -> Response {
        do {
            let mediaType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard mediaType == "application/json" else { throw CallableError.badRequest }
            let bytes: ByteBuffer
            do {
                bytes = try await request.body.collect(upTo: Self.maxCallableBody)
            } catch {
                throw CallableError.badRequest
            }
            let body = Data(buffer: bytes)
            guard let envelope = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) as? [String: Any],
                  envelope.keys.count == 1, envelope["data"] != nil
            else { throw CallableError.badRequest }
            guard let token = request.headers[HTTPField.Name("api-token")!], let issuer = try await issuer(token: token, kind: .proteGO)
            else { throw CallableError.permissionDenied }
            let result = try await work(issuer, body)
            return Self.json(.ok, ["result": result])
        } catch let refusal as CallableError {
            return Self.json(refusal.status, ["error": refusal.body])
        } catch let limited as LimitReached {
            var response = Self.json(CallableError.resourceExhausted.status, ["error": CallableError.resourceExhausted.body])
            response.headers[.retryAfter] = "\(limited.retryAfterSeconds)"
            return response
        } catch {
            logger.error("\(name) failed", metadata: ["error": "\(type(of: error))"])
            return Self.json(.internalServerError, ["error": ["message": "INTERNAL", "status": "INTERNAL"]])
        }
    }

    static func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
