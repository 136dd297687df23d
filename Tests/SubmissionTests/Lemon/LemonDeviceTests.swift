import _CryptoExtras
import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing

/// The LEMON sheet's acceptance items 1–7 and 13: devices, their sessions, lockout, push tokens.
@Suite struct LemonDeviceTests {
    @Test(arguments: TestDatabase.all)
    func registrationAnswersASignedSessionAndStoresOnlyTheAppIdsHash(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let device = LemonTestDevice()
            let seed = LemonTestDevice.seed()
            let answer = try await h.devices(device.registration(now: h.clock.now(), seed: seed))
            Covers.status(201, of: "POST /api/v1/devices", answer)
            answer.expectEnvelope(201)
            #expect((answer.json["meta"] as? [String: Any])?["message"] as? String == "Device successfully authenticated.")
            let data = answer.lemonData
            #expect((data["accessToken"] as? String)?.split(separator: ".").count == 3)
            #expect(data["accessTokenExpiry"] as? String == Date.iso8601(h.clock.now().epochSeconds + 3600))
            let serverSeed = try #require(data["seed"] as? String)
            #expect(Data(base64Encoded: serverSeed)?.count == 32)
            // The app checks the answer's signature with the key built into it.
            let signature = try #require(data["Signature"] as? [String: Any])
            let plain = try #require(signature["plainTextData"] as? String)
            let signedText = try #require(signature["signedData"] as? String)
            let signed = try #require(Data(base64Encoded: signedText))
            #expect(plain.hasPrefix("\(serverSeed):\(seed):"))
            #expect(LemonTestKeys.signing.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signed), for: Data(plain.utf8), padding: .insecurePKCS1v1_5))
            // The AppId is nowhere in the table, only its keyed hash.
            let stored = try await h.base.database.withConnection { connection in
                try await connection.raw("SELECT app_id_hash FROM lemon_devices").all().map { try $0.decode(column: "app_id_hash", as: String.self) }
            }
            #expect(stored.count == 1)
            #expect(stored.first != device.appId && stored.first != SecretHash.sha256Hex(device.appId))
            // ES256, one hour, `sub` the device's random id (not its AppId).
            let parts = try #require(data["accessToken"] as? String).split(separator: ".").map { part -> [String: Any] in
                var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                while text.count % 4 != 0 { text += "=" }
                return (try? JSONSerialization.jsonObject(with: Data(base64Encoded: text) ?? Data())) as? [String: Any] ?? [:]
            }
            #expect(parts[0]["alg"] as? String == "ES256")
            let id = try await h.base.database.withConnection { connection in
                try await connection.raw("SELECT id FROM lemon_devices").first()?.decode(column: "id", as: String.self)
            }
            #expect(parts[1]["sub"] as? String == id)
            #expect((parts[1]["exp"] as? Int).map { $0 - (parts[1]["iat"] as? Int ?? 0) } == 3600)
            #expect(parts[1]["jti"] is String)
        }
    }

    @Test(arguments: TestDatabase.all)
    func registrationRefusals(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let device = LemonTestDevice()
            let now = h.clock.now()
            _ = try await h.token(device)
            let again = try await h.devices(device.registration(now: now))
            again.expectEnvelope(401)

            let other = LemonTestDevice()
            var forged = other.registration(now: now)
            let seed = try #require(forged["seed"] as? String)
            forged["Signature"] = other.signature(seed: seed, now: now, signer: LemonTestDevice().key)
            try await h.devices(forged).expectEnvelope(401)
            var badKey = other.registration(now: now)
            badKey["publicKey"] = Data("not a key".utf8).base64EncodedString()
            try await h.devices(badKey).expectEnvelope(401)
            var badSecret = other.registration(now: now)
            badSecret["preMasterSecret"] = LemonTestDevice.preMasterSecret(bytes: 16)
            try await h.devices(badSecret).expectEnvelope(401)
            var stale = other.registration(now: now.addingTimeInterval(-3600))
            stale["seed"] = (stale["Signature"] as? [String: Any])?["plainTextData"].flatMap { ($0 as? String)?.split(separator: ":").first.map(String.init) }
            try await h.devices(stale).expectEnvelope(401)

            var noSignature = other.registration(now: now)
            noSignature["Signature"] = nil
            try await h.devices(noSignature).expectEnvelope(400)
            var shortSeed = other.registration(now: now)
            shortSeed["seed"] = Data(count: 16).base64EncodedString()
            try await h.devices(shortSeed).expectEnvelope(400)
            var language = other.registration(now: now)
            language["language"] = "zz"
            try await h.devices(language).expectEnvelope(400)
            var noAppId = other.registration(now: now)
            noAppId["AppId"] = ""
            try await h.devices(noAppId).expectEnvelope(400)
            try await h.devices(other.registration(now: now, pushToken: "abcd")).expectEnvelope(400)
            var system = other.registration(now: now)
            system["operatingSystem"] = "Symbian"
            try await h.devices(system).expectEnvelope(400)
            let malformed = try await h.client.postRaw("/api/v1/devices", Array("{".utf8))
            malformed.expectEnvelope(400)

            // None of those stored anything; keys in any casing are the same keys.
            var casing = other.registration(now: now)
            casing["APPID"] = casing.removeValue(forKey: "AppId")
            casing["signature"] = casing.removeValue(forKey: "Signature")
            try await h.devices(casing).expectEnvelope(201)
            var twice = LemonTestDevice().registration(now: now)
            twice["appid"] = "another"
            try await h.devices(twice).expectEnvelope(400)
        }
    }

    @Test(arguments: TestDatabase.all)
    func authenticationOpensANewSessionAndRefusesRegistrationFields(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let device = LemonTestDevice()
            _ = try await h.token(device)
            let body = device.authentication(now: h.clock.now())
            let answer = try await h.devices(body)
            answer.expectEnvelope(201)
            #expect(answer.lemonData["accessToken"] is String)
            // The same signed request again is a replay.
            try await h.devices(body).expectEnvelope(401)
            for (field, value) in [("publicKey", device.key.publicKey.derRepresentation.base64EncodedString()), ("operatingSystem", "IOS"), ("pushToken", "token-12345")] {
                var extra = device.authentication(now: h.clock.now())
                extra[field] = value
                // With a public key it is a registration of an AppId that exists: 401 as well.
                try await h.devices(extra).expectEnvelope(401)
            }
            try await h.devices(LemonTestDevice().authentication(now: h.clock.now())).expectEnvelope(401)
            var seed = device.authentication(now: h.clock.now())
            seed["seed"] = "not base64"
            try await h.devices(seed).expectEnvelope(400)
        }
    }

    /// The answers spell the server's signature as the document's examples do: `Signature` after a registration,
    /// `signature` after an authentication, never both.
    @Test(arguments: TestDatabase.all)
    func eachAnswerSpellsItsSignatureAsTheDocumentsExample(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let device = LemonTestDevice()
            let registered = try await h.devices(device.registration(now: h.clock.now()))
            registered.expectEnvelope(201)
            #expect(registered.lemonData["Signature"] is [String: Any] && registered.lemonData["signature"] == nil, "\(registered.text)")
            let authenticated = try await h.devices(device.authentication(now: h.clock.now()))
            authenticated.expectEnvelope(201)
            let signature = authenticated.lemonData["signature"] as? [String: Any]
            #expect(signature?["plainTextData"] is String && signature?["signedData"] is String, "\(authenticated.text)")
            #expect(authenticated.lemonData["Signature"] == nil)
            #expect(Set(authenticated.lemonData.keys) == ["accessToken", "accessTokenExpiry", "seed", "signature"])
        }
    }

    /// A signature that is not an object of two strings is the document's 401 "Invalid signature structure", in
    /// authentication and registration alike; an absent one stays the 400 of a missing signature.
    @Test(arguments: TestDatabase.all)
    func aSignatureOfTheWrongStructureIsUnauthorized(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let device = LemonTestDevice()
            _ = try await h.token(device)
            let wrong: [Any] = [
                "a string", 42, true, ["plainTextData", "signedData"], [String: Any](), ["plainTextData": "x"],
                ["plainTextData": 1, "signedData": "AA=="], ["plainTextData": "x", "signedData": ["AA=="]],
            ]
            for value in wrong {
                var authentication = device.authentication(now: h.clock.now())
                authentication["signature"] = value
                let answer = try await h.devices(authentication)
                answer.expectEnvelope(401)
                #expect((answer.json["meta"] as? [String: Any])?["message"] as? String == "Invalid signature structure.", "\(value)")
                var registration = LemonTestDevice().registration(now: h.clock.now())
                registration["Signature"] = value
                try await h.devices(registration).expectEnvelope(401)
            }
            var missing = device.authentication(now: h.clock.now())
            missing["signature"] = NSNull()
            try await h.devices(missing).expectEnvelope(400)
            // None of them counted against the AppId: it still authenticates.
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func threeFailuresLockTheAppIdForTenMinutes(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let device = LemonTestDevice()
            _ = try await h.token(device)
            let stranger = LemonTestDevice().key
            for _ in 0..<3 {
                try await h.devices(device.authentication(now: h.clock.now(), signer: stranger)).expectEnvelope(401)
            }
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(401)
            h.clock.advance(by: 599)
            // Attempts while locked do not extend the lock.
            try await h.devices(device.authentication(now: h.clock.now(), signer: stranger)).expectEnvelope(401)
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(401)
            h.clock.advance(by: 1)
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(201)
            // Two failures then a success: the count starts again.
            for _ in 0..<2 {
                try await h.devices(device.authentication(now: h.clock.now(), signer: stranger)).expectEnvelope(401)
            }
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(201)
            try await h.devices(device.authentication(now: h.clock.now(), signer: stranger)).expectEnvelope(401)
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func deviceRequestsAreLimitedForAllCallersTogether(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind, settings: ["LEMON_DEVICE_RATE": "1", "LEMON_DEVICE_BURST": "2"]) { h in
            let device = LemonTestDevice()
            try await h.devices(device.registration(now: h.clock.now())).expectEnvelope(201)
            // A refused request spends a token as well: the limit is on work, whatever its outcome.
            try await h.devices(LemonTestDevice().authentication(now: h.clock.now())).expectEnvelope(401)
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(429)
            h.clock.advance(by: 1)
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func everyOtherEndpointNeedsAValidToken(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let token = try await h.token(LemonTestDevice())
            let routes: [(String, String, Any?)] = [
                ("DELETE", "/api/v1/devices", nil), ("POST", "/api/v1/devices/active?status=true", nil),
                ("POST", "/api/v1/devices/push_token", ["pushToken": "token-12345"]), ("DELETE", "/api/v1/devices/push_token", nil),
                ("GET", "/api/v1/symptoms", nil), ("POST", "/api/v1/submission/covid", ["Status": "Unsure"]),
                ("GET", "/api/v1/countries", nil), ("GET", "/api/v1/languages", nil),
            ]
            let forged = token.dropLast(4) + "AAAA"
            for (method, path, body) in routes {
                try await h.send(method, path, token: nil, json: body).expectEnvelope(401)
                try await h.send(method, path, token: String(forged), json: body).expectEnvelope(401)
                try await h.send(method, path, token: "not.a.jwt", json: body).expectEnvelope(401)
            }
            try await h.send("GET", "/api/v1/symptoms", token: token).expectEnvelope(200)
            h.clock.advance(by: 3600)
            try await h.send("GET", "/api/v1/symptoms", token: token).expectEnvelope(401)
        }
    }

    @Test(arguments: TestDatabase.all)
    func pushTokensAreUniqueAndChecked(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let first = try await h.token(LemonTestDevice())
            let second = try await h.token(LemonTestDevice())
            let set = try await h.send("POST", "/api/v1/devices/push_token", token: first, json: ["pushToken": "token-12345"])
            Covers.status(201, of: "POST /api/v1/devices/push_token", set)
            set.expectEnvelope(201)
            try await h.send("POST", "/api/v1/devices/push_token", token: first, json: ["pushToken": "token-12345"]).expectEnvelope(201)
            for bad: Any in ["", "abcd", String(repeating: "x", count: 501), NSNull()] {
                try await h.send("POST", "/api/v1/devices/push_token", token: second, json: ["pushToken": bad]).expectEnvelope(400)
            }
            try await h.send("POST", "/api/v1/devices/push_token", token: second, json: [String: Any]()).expectEnvelope(400)
            try await h.send("POST", "/api/v1/devices/push_token", token: second, json: ["PUSHTOKEN": String(repeating: "y", count: 500)]).expectEnvelope(201)
            // Another device's token moves to this one (issue #59: a 401 told whether a token is registered).
            try await h.send("POST", "/api/v1/devices/push_token", token: second, json: ["pushToken": "token-12345"]).expectEnvelope(201)
            let removed = try await h.send("DELETE", "/api/v1/devices/push_token", token: first)
            Covers.status(200, of: "DELETE /api/v1/devices/push_token", removed)
            removed.expectEnvelope(200)
            try await h.send("POST", "/api/v1/devices/push_token", token: second, json: ["pushToken": "token-12345"]).expectEnvelope(201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aDeactivatedDeviceCannotAuthenticate(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let device = LemonTestDevice()
            let token = try await h.token(device)
            try await h.send("POST", "/api/v1/devices/active?status=maybe", token: token).expectEnvelope(400)
            try await h.send("POST", "/api/v1/devices/active", token: token).expectEnvelope(400)
            let off = try await h.send("POST", "/api/v1/devices/active?status=false", token: token)
            Covers.status(200, of: "POST /api/v1/devices/active", off)
            off.expectEnvelope(200)
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(401)
            try await h.send("POST", "/api/v1/devices/active?status=True", token: token).expectEnvelope(200)
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func deletingADeviceEndsItsTokensAndItsAppId(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let device = LemonTestDevice()
            let token = try await h.token(device)
            let deleted = try await h.send("DELETE", "/api/v1/devices", token: token)
            Covers.status(200, of: "DELETE /api/v1/devices", deleted)
            deleted.expectEnvelope(200)
            try await h.send("GET", "/api/v1/symptoms", token: token).expectEnvelope(401)
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(401)
            let rows = try await h.base.database.withConnection { connection in
                try await connection.raw("SELECT COUNT(*) AS n FROM lemon_devices").first()?.decode(column: "n", as: Int.self)
            }
            #expect(rows == 0)
        }
    }
}
