/// The device of the request being handled, set by `LemonEnvelopeMiddleware` once its JWT has been checked, so that
/// no handler can run without it.
enum LemonSession {
    @TaskLocal static var deviceID: String?
}
