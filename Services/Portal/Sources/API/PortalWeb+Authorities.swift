import ExposureCore
import Foundation
import Hummingbird
import PortalDomain

/// The health authorities, for system administrators: the list with each authority's families, regions and limits,
/// a new authority, disabling and enabling one, and appointing an authority's first supervisor (a local account of
/// that authority with the supervisor role and a temporary password shown once). Verification keeps the authorities
/// and checks the administrator's token itself; every step here is a POST with the session's CSRF token and leaves a
/// row in the administration audit log, in the authority's own log.
extension PortalWeb {
    /// `GET /authorities`.
    func authoritiesPage(_ request: Request) async throws -> Response {
        try await asSupervisor(request, .authorities) { current, _ in
            guard let bearer = try await bearer(for: current) else { return try await endSession(current) }
            let authorities = try Self.answer(await register.list(bearer: bearer))
            return authoritiesList(request, session: current, authorities: authorities)
        }
    }

    private func authoritiesList(_ request: Request, session current: PortalSession, authorities: [AuthorityRecord]) -> Response {
        let language = language(request)
        let texts = language.administratorTexts
        let rows = authorities.map { authority -> [String: Any] in
            var limits: [String] = []
            if let hour = authority.teleTANsPerHour { limits.append(PortalTexts.fill(texts.perHour, ["count": language.format.number(Int64(hour))])) }
            if let day = authority.teleTANsPerDay { limits.append(PortalTexts.fill(texts.perDay, ["count": language.format.number(Int64(day))])) }
            if let hour = authority.issuerCodesPerHour {
                limits.append(PortalTexts.fill(texts.perKeyHour, ["count": language.format.number(Int64(hour))]))
            }
            if let day = authority.issuerCodesPerDay { limits.append(PortalTexts.fill(texts.perKeyDay, ["count": language.format.number(Int64(day))])) }
            var row: [String: Any] = [
                "id": authority.id,
                "name": authority.name,
                "regions": authority.regions.isEmpty ? texts.everyRegion : authority.regions.joined(separator: ", "),
                "families": authority.families.isEmpty ? texts.noFamily : authority.families.map(texts.family).joined(separator: ", "),
                "limits": limits.isEmpty ? texts.noLimit : limits.joined(separator: ", "),
                "state": authority.disabled ? texts.stateDisabled : texts.stateActive,
                "appointLegend": PortalTexts.fill(texts.appointLegend, ["name": authority.name]),
                "changeLegend": PortalTexts.fill(texts.changeLegend, ["name": authority.name]),
                // The settings form shows each as it is, an empty limit for none.
                "regionList": authority.regions.joined(separator: ", "),
                "familyChoices": AuthorityRecord.knownFamilies.map { family -> [String: Any] in
                    var choice: [String: Any] = ["family": family, "label": texts.family(family)]
                    if authority.families.contains(family) { choice["checked"] = true }
                    return choice
                },
                "perHour": authority.teleTANsPerHour.map(String.init) ?? "",
                "perDay": authority.teleTANsPerDay.map(String.init) ?? "",
                "perKeyHour": authority.issuerCodesPerHour.map(String.init) ?? "",
                "perKeyDay": authority.issuerCodesPerDay.map(String.init) ?? "",
            ]
            if authority.disabled { row["disabled"] = true }
            return row
        }
        var values: [String: Any] = [
            "au": texts,
            "authorities": rows,
            "families": AuthorityRecord.knownFamilies.map { ["family": $0, "label": texts.family($0)] },
        ]
        if !rows.isEmpty { values["hasAuthorities"] = true }
        // Local accounts sign in only where the portal signs tokens; an identity provider appoints its own supervisors.
        if signer != nil { values["appoints"] = true }
        // The notice of the change just made, for an authority that exists (the query names it; the texts are ours).
        if let done = request.uri.queryParameters["done"].map(String.init),
           let id = request.uri.queryParameters["id"].map(String.init), authorities.contains(where: { $0.id == id }) {
            let text: String? = switch done {
            case "added": texts.doneAdded
            case "disabled": texts.doneDisabled
            case "enabled": texts.doneEnabled
            case "changed": texts.doneChanged
            default: nil
            }
            if let text { values["notice"] = PortalTexts.fill(text, ["id": id]) }
        }
        return pages.render("authorities", language: language, title: texts.title, session: current, values: values)
    }

    /// `POST /authorities`: a new authority, enabled, with the form's settings.
    func addAuthority(_ request: Request) async throws -> Response {
        try await supervisorPost(request, .authorities) { current, fields, _ in
            let authority: AuthorityRecord
            do throws(AuthorityForm.Problem) { authority = try AuthorityForm.parse(fields) } catch { return refused(.authorityForm(error), request, current) }
            guard let bearer = try await bearer(for: current) else { return try await endSession(current) }
            switch await register.create(authority, bearer: bearer) {
            case .done: break
            case .exists: return refused(.authorityExists, request, current)
            case .refused, .disabled: return refused(.authorityRefused, request, current)
            case .unknown, .unavailable: throw PortalError.unavailable
            }
            try await officerAudit.record(administration(.authorityAdded, by: current, target: authority.id, detail: authority.name, authority: authority.id))
            logger.info("health authority added", metadata: ["administrator": "\(current.officer.name)", "authority": "\(authority.id)"])
            return redirect("/authorities?" + FormEncoding.encode([("done", "added"), ("id", authority.id)]))
        }
    }

    /// `POST /authorities/disable`: the authority's officers and issuers issue nothing; everything of it stays.
    func disableAuthority(_ request: Request) async throws -> Response {
        try await setAuthorityDisabled(request, true)
    }

    /// `POST /authorities/enable`.
    func enableAuthority(_ request: Request) async throws -> Response {
        try await setAuthorityDisabled(request, false)
    }

    private func setAuthorityDisabled(_ request: Request, _ disabled: Bool) async throws -> Response {
        try await supervisorPost(request, .authorities) { current, fields, _ in
            let id = fields["id"] ?? ""
            guard AuthorityID.isWellFormed(id) else { return refused(.noSuchAuthority, request, current) }
            guard let bearer = try await bearer(for: current) else { return try await endSession(current) }
            // Read, then write the same settings with the state changed: the form names only the authority.
            do {
                var authority = try Self.named(await register.get(id, bearer: bearer))
                authority.disabled = disabled
                _ = try Self.named(await register.change(authority, bearer: bearer))
            } catch let problem as OfficerAdminProblem {
                return refused(problem, request, current)
            }
            try await officerAudit.record(administration(disabled ? .authorityDisabled : .authorityEnabled, by: current, target: id, detail: nil, authority: id))
            logger.info(disabled ? "health authority disabled" : "health authority enabled", metadata: ["administrator": "\(current.officer.name)", "authority": "\(id)"])
            return redirect("/authorities?" + FormEncoding.encode([("done", disabled ? "disabled" : "enabled"), ("id", id)]))
        }
    }

    /// `POST /authorities/change`: replaces the authority's name, regions, families and four own limits with the
    /// form's (an emptied limit is none), keeping its id and whether it is disabled.
    func changeAuthority(_ request: Request) async throws -> Response {
        try await supervisorPost(request, .authorities) { current, fields, _ in
            let id = fields["id"] ?? ""
            guard AuthorityID.isWellFormed(id) else { return refused(.noSuchAuthority, request, current) }
            guard let bearer = try await bearer(for: current) else { return try await endSession(current) }
            let changed: AuthorityRecord
            do {
                let existing = try Self.named(await register.get(id, bearer: bearer))
                var authority: AuthorityRecord
                do throws(AuthorityForm.Problem) { authority = try AuthorityForm.parse(fields) } catch {
                    return refused(.authorityForm(error), request, current)
                }
                authority.disabled = existing.disabled
                changed = try Self.named(await register.change(authority, bearer: bearer))
            } catch let problem as OfficerAdminProblem {
                return refused(problem, request, current)
            }
            let limits = [changed.teleTANsPerHour, changed.teleTANsPerDay, changed.issuerCodesPerHour, changed.issuerCodesPerDay]
            let detail = ["families=\(changed.families.joined(separator: ","))", "regions=\(changed.regions.joined(separator: ","))"]
                + zip(["per-hour", "per-day", "per-key-hour", "per-key-day"], limits).map { "\($0)=\($1.map(String.init) ?? "-")" }
            try await officerAudit.record(administration(.authorityChanged, by: current, target: id, detail: detail.joined(separator: " "), authority: id))
            logger.info("health authority changed", metadata: ["administrator": "\(current.officer.name)", "authority": "\(id)"])
            return redirect("/authorities?" + FormEncoding.encode([("done", "changed"), ("id", id)]))
        }
    }

    /// `POST /authorities/supervisor`: a local account of the authority with the supervisor role and a temporary
    /// password, shown once; at its first sign-in it chooses its own password and sets up two-factor sign-in.
    func appointSupervisor(_ request: Request) async throws -> Response {
        try await supervisorPost(request, .authorities) { current, fields, _ in
            // Without the portal's own tokens, local accounts cannot sign in: the identity provider appoints.
            guard signer != nil else { throw PortalError.notFound }
            let id = fields["id"] ?? ""
            guard AuthorityID.isWellFormed(id) else { return refused(.noSuchAuthority, request, current) }
            let name = fields["name"]?.trimmingCharacters(in: .whitespaces) ?? ""
            guard UserName.isWellFormed(name) else { return refused(.invalidName, request, current) }
            guard let bearer = try await bearer(for: current) else { return try await endSession(current) }
            let authority: AuthorityRecord
            do {
                authority = try Self.named(await register.get(id, bearer: bearer))
            } catch let problem as OfficerAdminProblem {
                return refused(problem, request, current)
            }
            let roles: Set<String> = [OfficerRoles.supervisor]
            let password = PasswordPolicy.generate(using: random)
            let hash = try await hasher.hash(password)
            let audit = administration(.added, by: current, target: name, detail: RoleList.encode(roles), authority: authority.id)
            guard try await users.add(
                name: name, passwordHash: hash, roles: roles, authority: authority.id, temporary: true, now: clock.now(), audit: audit
            ) else {
                return refused(.nameTaken, request, current)
            }
            logger.info("supervisor appointed", metadata: ["administrator": "\(current.officer.name)", "officer": "\(name)", "authority": "\(authority.id)"])
            let language = language(request)
            let notice = PortalTexts.fill(language.administratorTexts.supervisorAppointed, ["name": name, "authority": authority.name])
            return pages.render(
                "temporary-password", language: language, title: language.accountTexts.temporaryPasswordTitle, session: current,
                values: ["password": password, "notice": notice, "backToAuthorities": language.administratorTexts.backToAuthorities]
            )
        }
    }

    /// The value of a read, or the page's error for verification's failure.
    private static func answer<Value>(_ result: AuthorityRegister.Result<Value>) throws(PortalError) -> Value {
        switch result {
        case .done(let value): value
        case .refused, .disabled: throw PortalError.verificationRefused
        case .exists, .unknown, .unavailable: throw PortalError.unavailable
        }
    }

    /// The value of a lookup or change of one named authority; an unknown one and a refusal are the page's problems
    /// (`OfficerAdminProblem`), an unanswered call the 503 page.
    private static func named<Value>(_ result: AuthorityRegister.Result<Value>) throws -> Value {
        switch result {
        case .done(let value): return value
        case .unknown: throw OfficerAdminProblem.noSuchAuthority
        case .refused, .exists, .disabled: throw OfficerAdminProblem.authorityRefused
        case .unavailable: throw PortalError.unavailable
        }
    }

    /// A session that can no longer get a token (its provider's token ran out) signs in again.
    private func endSession(_ current: PortalSession) async throws -> Response {
        try await sessions.delete(idHash: current.idHash)
        return signInAgain(.ended)
    }
}
