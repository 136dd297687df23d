// The framework ceiling for scripts/bench: the fastest a Hummingbird 2 server answers on this
// machine, with no database, no JSON and no middleware. Every service figure is reported as a
// ratio to this one, measured in the same run, because absolute figures on shared machines drift.
//
//   bench-ceiling [port]        (or PORT=…; default 8099)
import Hummingbird

let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) }
    ?? Int(Environment().get("PORT") ?? "")
    ?? 8099
let router = Router()
router.get("/") { _, _ in "ok" }
// POST reads its body like a service would, so that POST figures compare like with like.
router.post("/") { request, _ -> String in
    _ = try await request.body.collect(upTo: 1 << 20)
    return "ok"
}
router.get("/health/ready") { _, _ in HTTPResponse.Status.ok }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
