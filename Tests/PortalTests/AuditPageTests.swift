import ExposureCore
import ExposureTestSupport
import Foundation
@testable import PortalDomain
import Testing
@testable import Portal

/// The supervisors' audit page: both logs, newest first, filtered and paged.
@Suite struct AuditPageTests {
    @Test(arguments: TestDatabase.all)
    func theAuditPageFiltersByOfficerActionAndDaysAPageAtATime(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor()
            let log = OfficerAuditLog(database: h.database)
            let day: Int64 = 86400
            let start = h.clock.now().epochSeconds - 100 * day
            // 60 role changes by sofia, one a day; one by tom on the last day; one teleTAN request of ben; and sofia's
            // set-up of two-factor sign-in, now.
            for n in 0..<60 {
                try await log.record(OfficerAuditEntry(
                    actor: "sofia", actorSource: .local, action: OfficerAction.rolesChanged.rawValue, target: "ben\(n)", detail: "c19hotline",
                    occurredAt: start + Int64(n) * day, authority: "default"
                ))
            }
            try await log.record(OfficerAuditEntry(actor: "tom", actorSource: .oidc, action: OfficerAction.added.rawValue, target: "cara", detail: nil, occurredAt: start + 59 * day + 1, authority: "default"))
            try await AuditLog(database: h.database).record(AuditEntry(
                officer: "ben", source: .local, occurredAt: start + 30 * day + 5, kind: .teleTAN(.test), healthAuthority: nil, outcome: .issued, authority: "default"
            ))

            let first = try await sofia.get("/audit")
            Covers.status(200, of: "GET /audit", first)
            #expect(first.text.components(separatedBy: "<tr><td>").count - 1 == AuditFilter.pageSize)
            // Newest first: tom's row, then sofia's last.
            #expect(first.text.range(of: "tom (oidc)")!.lowerBound < first.text.range(of: "ben59")!.lowerBound)
            #expect(first.text.contains(#"href="/audit?page=2""#))
            #expect(!first.text.contains(#"id="newer""#))
            let second = try await sofia.get("/audit?page=2")
            #expect(second.text.components(separatedBy: "<tr><td>").count - 1 == 63 - AuditFilter.pageSize)
            #expect(second.text.contains(#"href="/audit?page=1""#))
            #expect(!second.text.contains(#"id="older""#))

            let byActor = try await sofia.get("/audit?actor=tom")
            #expect(byActor.text.components(separatedBy: "<tr><td>").count - 1 == 1)
            #expect(byActor.text.contains("cara"))
            let issued = try await sofia.get("/audit?action=issue")
            #expect(issued.text.components(separatedBy: "<tr><td>").count - 1 == 1)
            // Issue #62: details in sentences of the page's language, not the stored words.
            #expect(issued.text.contains("<td>A TEST teleTAN: issued.</td>") && !issued.text.contains("TEST issued"))
            #expect(issued.text.contains(#"<option value="issue" selected>"#))
            #expect(first.text.contains("<td>With the roles c19hotline.</td>"))
            let german = try await h.supervisor("sara", language: "de").get("/audit?action=issue")
            #expect(german.text.contains("<td>Eine TEST-teleTAN: ausgegeben.</td>"))
            // Date pickers, and the download of the filtered rows.
            #expect(first.text.contains(#"id="filter-from" name="from" value="" type="date""#))
            #expect(byActor.text.contains(#"href="/audit.csv?actor=tom""#))
            // Days 10 to 12 after the start, both inclusive: three of sofia's rows.
            let from = Date.iso8601(start + 10 * day).prefix(10)
            let to = Date.iso8601(start + 12 * day).prefix(10)
            let range = try await sofia.get("/audit?from=\(from)&to=\(to)&action=roles_changed")
            #expect(range.text.components(separatedBy: "<tr><td>").count - 1 == 3)
            #expect(range.text.contains("ben10") && range.text.contains("ben12") && !range.text.contains("ben13<"))
            let none = try await sofia.get("/audit?actor=nobody")
            #expect(none.text.contains(#"id="no-entries""#))

            for query in ["from=2026-13-01", "to=yesterday", "action=drop_table", "page=0", "page=x", "actor=a%0Ab"] {
                let bad = try await sofia.get("/audit?\(query)")
                Covers.status(400, of: "GET /audit", bad, error: "bad-filter")
            }
        }
    }

    /// Issue #62: the filtered rows as CSV, every one of them (not a page), with the stored words, safe to open in a
    /// spreadsheet; supervisors only.
    @Test(arguments: TestDatabase.all)
    func theFilteredRowsDownloadAsCSV(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor()
            let log = OfficerAuditLog(database: h.database)
            let start = h.clock.now().epochSeconds - 100 * 86400
            for n in 0..<60 {
                try await log.record(OfficerAuditEntry(
                    actor: "sofia", actorSource: .local, action: OfficerAction.rolesChanged.rawValue, target: "ben\(n)", detail: "c19hotline,c19supervisor",
                    occurredAt: start + Int64(n) * 60, authority: "default"
                ))
            }
            try await log.record(OfficerAuditEntry(actor: "=cmd", actorSource: .oidc, action: OfficerAction.added.rawValue, target: "cara", detail: nil, occurredAt: start + 3600, authority: "default"))
            let all = try await sofia.get("/audit.csv?action=roles_changed")
            Covers.status(200, of: "GET /audit.csv", all)
            #expect(all.header("Content-Type") == "text/csv; charset=utf-8")
            #expect(all.header("Content-Disposition") == #"attachment; filename="audit.csv""#)
            let lines = all.text.split(separator: "\r\n").map(String.init)
            #expect(lines.first == "time,actor,source,action,target,detail")
            // All 60, more than a page, newest first.
            #expect(lines.count == 61)
            #expect(lines[1] == "\(Date.iso8601(start + 59 * 60)),sofia,local,roles_changed,ben59,\"c19hotline,c19supervisor\"")
            let formula = try await sofia.get("/audit.csv?actor=%3Dcmd")
            #expect(formula.text.split(separator: "\r\n").dropFirst().map(String.init) == ["\(Date.iso8601(start + 3600)),'=cmd,oidc,officer_added,cara,"])
            Covers.status(400, of: "GET /audit.csv", try await sofia.get("/audit.csv?from=someday"), error: "bad-filter")
            let officer = try await h.signedIn("olga")
            Covers.status(403, of: "GET /audit.csv", try await officer.get("/audit.csv"), error: "not-supervisor")
            let signedOut = try await h.browser().get("/audit.csv")
            Covers.status(303, of: "GET /audit.csv", signedOut)
            #expect(signedOut.header("Location") == "/login")
        }
    }

    @Test func filtersAreParsedStrictly() throws {
        let filter = try AuditFilter.parse(actor: " anna ", action: "officer_added", from: "2026-01-31", to: "2026-02-01", page: "3")
        #expect(filter == AuditFilter(actor: "anna", action: "officer_added", from: 1_769_817_600, until: 1_769_904_000 + 86400, page: 3))
        #expect(filter.offset == 2 * AuditFilter.pageSize)
        #expect(try AuditFilter.parse(actor: "", action: nil, from: " ", to: nil, page: nil) == AuditFilter())
        #expect(throws: AuditFilter.Problem.date) { try AuditFilter.parse(actor: nil, action: nil, from: "2026-02-30", to: nil, page: nil) }
        #expect(throws: AuditFilter.Problem.date) { try AuditFilter.parse(actor: nil, action: nil, from: "2026-2-3", to: nil, page: nil) }
        #expect(throws: AuditFilter.Problem.action) { try AuditFilter.parse(actor: nil, action: "x", from: nil, to: nil, page: nil) }
        #expect(throws: AuditFilter.Problem.page) { try AuditFilter.parse(actor: nil, action: nil, from: nil, to: nil, page: "10001") }
        #expect(throws: AuditFilter.Problem.actor) { try AuditFilter.parse(actor: "a\u{7F}", action: nil, from: nil, to: nil, page: nil) }
    }
}
