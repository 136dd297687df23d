import ExposureCore
import Foundation
import Logging
import OpenAPIRuntime
import SubmissionDomain

/// The handler of `openapi/lemon.yaml`. Rules live in `Domain/Lemon/`, SQL in `Storage/`; the JWT, the key casing and
/// the envelope of errors in `LemonEnvelopeMiddleware`.
struct LemonAPI: APIProtocol {
    let catalog: LemonCatalog
    let deviceRules: LemonDeviceRules
    let surveyValidator: LemonSurveyValidator
    let serverKeys: LemonServerKeys
    let appIdHasher: TypedSecretHasher
    let tokens: LemonAccessTokens
    let devices: LemonDeviceStore
    let surveys: LemonSurveyStore
    /// Surveys per device and day (`LEMON_SURVEYS_PER_DEVICE_DAY`), counted apart from the surveys.
    let surveyQuota: LemonSurveyQuotaStore
    let statistics: LemonStatisticsStore
    /// What the statistics answers name as their source.
    let statisticsSource: (name: String, url: String)
    /// All callers of `POST /api/v1/devices` together: the lockout protects one AppId, this the service.
    let deviceLimit: TokenBucket
    /// Whether sessions keep payload keys (`LEMON_PAYLOAD_ENCRYPTION`).
    let payloadEncryption: Bool
    let environment: ServiceEnvironment

    static func meta(_ code: Int) -> Components.Schemas.Meta {
        Components.Schemas.Meta(success: true, code: code, message: nil)
    }

    static func empty(_ code: Int) -> Components.Responses.Empty {
        .init(body: .json(.init(meta: meta(code))))
    }

    /// The device of the request (`LemonEnvelopeMiddleware` has checked its token).
    static func device() throws -> String {
        guard let id = LemonSession.deviceID else { throw APIError.unauthorized("A valid access token is required.") }
        return id
    }

    // MARK: Devices

    func postDevice(_ input: Operations.postDevice.Input) async throws -> Operations.postDevice.Output {
        guard deviceLimit.tryTake() else { throw LemonRejection(.rateLimited, "Too many device requests; try again later.").apiError }
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        let request = LemonDeviceRequest(
            appId: body.appId, publicKey: body.publicKey, operatingSystem: body.operatingSystem, pushToken: body.pushToken,
            language: body.language, seed: body.seed, preMasterSecret: body.preMasterSecret,
            plainTextData: body.signature?.plainTextData, signedData: body.signature?.signedData, hasSignature: body.signature != nil
        )
        do {
            let (deviceID, opened) = request.isRegistration ? try await register(request) : try await authenticate(request)
            let data = try await session(deviceID: deviceID, opened: opened, registered: request.isRegistration)
            // The early document's words; the app reads only `success`.
            let meta = Components.Schemas.Meta(success: true, code: 201, message: "Device successfully authenticated.")
            return .created(.init(body: .json(.init(data: data, meta: meta))))
        } catch let rejection as LemonRejection {
            throw rejection.apiError
        }
    }

    /// What a session is opened with: the request's seed and its decrypted pre-master secret.
    struct Opening {
        let credentials: LemonDeviceCredentials
        let preMasterSecret: [UInt8]
    }

    private func register(_ request: LemonDeviceRequest) async throws -> (String, Opening) {
        let credentials = try deviceRules.credentials(request)
        // An AppId that exists is 401 before the other fields are read: an authentication that wrongly carries a
        // public key is refused as the seed says (401), not as a malformed registration (400).
        guard try await devices.find(appId: appIdHasher.candidates(credentials.appId)) == nil else {
            throw LemonRejection.unauthorized("The AppId is already registered.")
        }
        let system = try deviceRules.operatingSystem(request)
        let pushToken = try LemonDeviceRules.pushToken(request.pushToken)
        let key = try LemonDeviceKey(base64: request.publicKey ?? "")
        let secret = try serverKeys.preMasterSecret(credentials.encryptedPreMasterSecret)
        let now = environment.clock.now()
        guard key.verifies(credentials.signature, over: credentials.plainTextData) else { throw LemonRejection.unauthorized("The signature is invalid.") }
        let signedAt = try LemonDeviceRules.checkSignedText(credentials, now: now)
        let id = UUID(uuid: Self.uuidBytes(environment.random)).uuidString.lowercased()
        let outcome = try await devices.register(
            id: id, appId: appIdHasher.hash(credentials.appId), publicKey: key.der, operatingSystem: system.rawValue,
            language: credentials.language, pushToken: pushToken,
            seed: .init(digest: SecretHash.sha256Hex(credentials.seedText), signedAt: signedAt), now: now
        )
        switch outcome {
        case .registered: return (id, Opening(credentials: credentials, preMasterSecret: secret))
        case .appIdTaken: throw LemonRejection.unauthorized("The AppId is already registered.")
        }
    }

    private func authenticate(_ request: LemonDeviceRequest) async throws -> (String, Opening) {
        try LemonDeviceRules.checkAuthenticationFields(request)
        let credentials = try deviceRules.credentials(request)
        let now = environment.clock.now()
        let refused = LemonRejection.unauthorized("The device could not be authenticated.")
        guard let device = try await devices.find(appId: appIdHasher.candidates(credentials.appId)) else { throw refused }
        guard !device.lockout.isLocked(now: now) else { throw LemonRejection.unauthorized("The AppId is locked; try again later.") }
        guard device.active else { throw LemonRejection.unauthorized("The device is deactivated.") }
        let secret: [UInt8]
        let signedAt: Int64
        do {
            secret = try serverKeys.preMasterSecret(credentials.encryptedPreMasterSecret)
            let key = try LemonDeviceKey(der: device.publicKey)
            guard key.verifies(credentials.signature, over: credentials.plainTextData) else { throw refused }
            signedAt = try LemonDeviceRules.checkSignedText(credentials, now: now)
        } catch {
            try await devices.recordFailure(id: device.id, now: now)
            throw error
        }
        let seed = LemonDeviceStore.SignedSeed(digest: SecretHash.sha256Hex(credentials.seedText), signedAt: signedAt)
        guard try await devices.recordSuccess(id: device.id, seed: seed, language: credentials.language, now: now) else {
            // A signed request accepted before, however many came after it: a replay.
            throw refused
        }
        return (device.id, Opening(credentials: credentials, preMasterSecret: secret))
    }

    /// - Parameter registered: whether the session opens a registration, whose answer spells its signature
    ///   `Signature` (an authentication's `signature`), as the document's two examples do.
    private func session(deviceID: String, opened: Opening, registered: Bool) async throws -> Components.Schemas.DeviceSession {
        let (token, expiry) = try await tokens.issue(deviceID: deviceID)
        let seedBytes = environment.random.bytes(count: LemonDeviceRules.seedBytes)
        let serverSeed = Data(seedBytes).base64EncodedString()
        if payloadEncryption {
            let cipher = LemonPayloadCipher(preMasterSecret: opened.preMasterSecret, clientSeed: opened.credentials.seed, serverSeed: seedBytes)
            try await devices.setSessionKeys(id: deviceID, cipher.material)
        }
        let signature = try serverKeys.sign(serverSeed: serverSeed, requestSeed: opened.credentials.seedText, now: environment.clock.now())
        let signed = Components.Schemas.SignedText(plainTextData: signature.plainText, signedData: signature.signed)
        return .init(
            accessToken: token, accessTokenExpiry: Date.iso8601(expiry.epochSeconds), seed: serverSeed,
            Signature: registered ? signed : nil, signature: registered ? nil : signed
        )
    }

    static func uuidBytes(_ random: any RandomSource) -> uuid_t {
        var bytes = random.bytes(count: 16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])
    }

    func deleteDevice(_ input: Operations.deleteDevice.Input) async throws -> Operations.deleteDevice.Output {
        try await devices.delete(id: try Self.device())
        return .ok(Self.empty(200))
    }

    func setDeviceActive(_ input: Operations.setDeviceActive.Input) async throws -> Operations.setDeviceActive.Output {
        let id = try Self.device()
        let active: Bool
        switch input.query.status?.lowercased() {
        case "true": active = true
        case "false": active = false
        default: throw APIError.badRequest("The status must be true or false.", code: "invalid")
        }
        try await devices.setActive(id: id, active)
        return .ok(Self.empty(200))
    }

    func setPushToken(_ input: Operations.setPushToken.Input) async throws -> Operations.setPushToken.Output {
        let id = try Self.device()
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        let sent: String?
        do {
            sent = try LemonDeviceRules.pushToken(body.pushToken)
        } catch {
            throw error.apiError
        }
        guard let token = sent else { throw LemonRejection.invalid("The push token is missing.").apiError }
        // A token another device holds moves here: no answer says whether a token is registered.
        try await devices.setPushToken(id: id, token)
        return .created(Self.empty(201))
    }

    func deletePushToken(_ input: Operations.deletePushToken.Input) async throws -> Operations.deletePushToken.Output {
        try await devices.clearPushToken(id: try Self.device())
        return .ok(Self.empty(200))
    }

    // MARK: Reference data

    func getSymptoms(_ input: Operations.getSymptoms.Input) async throws -> Operations.getSymptoms.Output {
        _ = try Self.device()
        do {
            let list = try catalog.symptoms(language: input.query.language)
            return .ok(.init(body: .json(.init(data: list.map { .init(key: $0.key, value: $0.value) }, meta: Self.meta(200)))))
        } catch {
            throw error.apiError
        }
    }

    func getCountries(_ input: Operations.getCountries.Input) async throws -> Operations.getCountries.Output {
        _ = try Self.device()
        do {
            let list = try catalog.countries(matching: input.query.country)
            return .ok(.init(body: .json(.init(
                data: list.map { .init(id: $0.id, name: $0.name, alpha2: $0.alpha2, timezone: $0.timezone, callingCode: $0.callingCode, cultureInfo: $0.cultureInfo) },
                meta: Self.meta(200)
            ))))
        } catch {
            throw error.apiError
        }
    }

    func getLanguages(_ input: Operations.getLanguages.Input) async throws -> Operations.getLanguages.Output {
        _ = try Self.device()
        do {
            let list = try catalog.languages(matching: input.query.language)
            return .ok(.init(body: .json(.init(data: list.map { .init(id: $0.id, name: $0.name, alpha2: $0.alpha2) }, meta: Self.meta(200)))))
        } catch {
            throw error.apiError
        }
    }

    // MARK: Surveys

    func submitSurvey(_ input: Operations.submitSurvey.Input) async throws -> Operations.submitSurvey.Output {
        let device = try Self.device()
        guard case .json(let body)? = input.body else { throw APIError.badRequest("The survey is missing.", code: "invalid") }
        let request = LemonSurveyRequest(
            status: body.Status, positiveTestDate: body.PositiveTestDate, negativeTestDate: body.NegativeTestDate,
            symptomsFrom: body.SymptomsFrom, country: body.Country, language: body.Language, age: body.Age,
            isSymptomatic: body.IsSymptomatic, symptoms: body.Symptoms
        )
        let survey: LemonSurvey
        do {
            survey = try surveyValidator.validate(request, now: environment.clock.now())
        } catch {
            throw error.apiError
        }
        // One device alone must not fill a cell of the aggregates: counted under a keyed hash of device and day, in a
        // table apart (`LemonSurveyQuotaStore`); the device id goes no further.
        guard try await surveyQuota.take(deviceID: device, day: survey.submittedDay) else {
            throw LemonRejection(.rateLimited, "This device has sent as many surveys as it may today; try again tomorrow.").apiError
        }
        // A random id: nothing in the row, its key included, follows from the device or the order of arrival.
        try await surveys.insert(survey, id: environment.random.bytes(count: 16).hexString)
        return .created(Self.empty(201))
    }
}
