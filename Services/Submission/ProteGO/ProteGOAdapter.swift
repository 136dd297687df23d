import ExposureCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenAPIHummingbird
import OpenAPIRuntime
import SubmissionDomain

/// The ProteGO Safe app family at the submission service's edge (issue #50): `POST /getAccessToken` and
/// `POST /uploadDiagnosisKeys` of `openapi/protego.yaml`, registered on the service's app listener. It owns only the
/// wire form; PINs are redeemed at verification and keys go through the service's one intake.
public struct ProteGOAdapter: Sendable {
    /// exposure-notifications-server's body limit for a publish request.
    public static let maxUploadBytes = 64_000
    static let paths = ["/getAccessToken", "/uploadDiagnosisKeys"]

    private let api: ProteGOAPI
    private let logger: Logger

    public init(
        codes: any ProteGOCodeRedeemer, intake: any ProteGOKeyIntake, rules: ProteGOUploadValidator.Rules,
        tally: HourlyTally, environment: ServiceEnvironment
    ) {
        api = ProteGOAPI(
            codes: codes, intake: intake, validator: ProteGOUploadValidator(rules: rules), metrics: ProteGOMetrics(tally: tally),
            environment: environment
        )
        logger = environment.logger
    }

    public func register(on router: Router<BasicRequestContext>) throws {
        try api.registerHandlers(
            on: router, configuration: StandardRouter.openAPIConfiguration, middlewares: [CallableErrorMiddleware(logger: logger)]
        )
        // A callable function answers any other method as a request that is not a callable one.
        for path in Self.paths {
            for method in [HTTPRequest.Method.get, .put, .delete, .patch] {
                router.on(RouterPath(path), method: method) { _, _ -> Response in
                    let error = CallableError.badRequest
                    return Response(
                        status: error.httpStatus, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: error.body))
                    )
                }
            }
        }
    }
}
