import ExposureCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenAPIHummingbird
import OpenAPIRuntime
import ServiceLifecycle
import SubmissionCore
import SubmissionDomain

/// The ProteGO Safe app family at the submission service's edge (issue #50): `POST /getAccessToken` and
/// `POST /uploadDiagnosisKeys` of `openapi/protego.yaml`, registered on the service's app listener. It owns the wire
/// form and its download output (`Export/`, written by the distribution run); PINs are redeemed at verification and
/// keys go through the service's one intake.
public struct ProteGOFamily: SubmissionFamily {
    public let name = "protego"
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

    /// The family over the service's shared parts: PINs spent through its client of verification, keys through its
    /// intake, with its mapping of risk levels.
    public static func make(_ configuration: ProteGOConfiguration, context: SubmissionFamilyContext) -> ProteGOFamily {
        ProteGOFamily(
            codes: context.codes, intake: context.intake, rules: configuration.rules(riskMapping: context.rules.riskMapping),
            tally: context.tally, environment: context.environment
        )
    }

    /// Its download output is written by the distribution run, not by a job of its own.
    public var jobs: [any Service] { [] }

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
